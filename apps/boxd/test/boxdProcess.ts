import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBoxClient, deriveBoxToken, type BoxClient } from "@berth/box-protocol";
import { afterAll } from "vitest";

const main = join(import.meta.dirname, "..", "src", "main.ts");

/** The secret tests derive tokens from, as Berth derives them from BERTH_SECRET. */
export const TEST_SECRET = "berth-test-secret-not-for-production";

export interface BoxdProcess {
  readonly child: ChildProcess;
  readonly root: string;
  readonly instanceId: string;
  readonly token: string;
  readonly baseUrl: string;
  readonly port: number;
  readonly client: BoxClient;
  readonly output: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>;
}

const madeFolders: string[] = [];

// Registered when a test file first imports this module, so it runs after that file's own
// afterAll hooks (they stop its boxd processes): nothing a test made stays behind in /tmp.
afterAll(async () => {
  const folders = madeFolders.splice(0);
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A new empty folder, removed with everything in it once the test file is done. */
export async function tempFolder(prefix = "boxd-"): Promise<string> {
  const folder = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  madeFolders.push(folder);
  return folder;
}

export interface StartOptions {
  readonly root?: string;
  readonly instanceId?: string;
  /** Added to boxd's environment; `undefined` removes a default (BOXD_TOKEN, for another way). */
  readonly env?: Record<string, string | undefined>;
  /** node's arguments: its flags and boxd's entry (default: the sources, through tsx). */
  readonly node?: readonly string[];
}

/** A real boxd as a child process on port 0, ready when it logs its "listening" line. */
export async function startBoxd(options: StartOptions = {}): Promise<BoxdProcess> {
  const root = options.root ?? (await tempFolder());
  const instanceId = options.instanceId ?? `box-${Math.random().toString(36).slice(2, 10)}`;
  const token = deriveBoxToken({ secret: TEST_SECRET, instanceId });
  const child = spawn(process.execPath, options.node ?? ["--import", "tsx", main], {
    env: {
      PATH: process.env.PATH ?? "",
      // A home of its own: a shell in a test box must not run this machine's dotfiles.
      HOME: await tempFolder("home-"),
      BOXD_TOKEN: token,
      BOXD_INSTANCE_ID: instanceId,
      BOXD_ROOT: root,
      BOXD_PORT: "0",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, "exit").then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const port = await Promise.race([
    waitForPort(() => output),
    exited.then(({ code }) => {
      throw new Error(`boxd exited (${String(code)}) before listening:\n${output}`);
    }),
  ]);
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    child,
    root,
    instanceId,
    token,
    baseUrl,
    port,
    // A boxd in a pod wants its uid named: the client names it whenever boxd was given one.
    client: createBoxClient({ baseUrl, token, podUid: options.env?.BOXD_POD_UID }),
    output: () => output,
    exited,
    stop: async () => {
      child.kill("SIGTERM");
      return exited;
    },
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * A boxd expected not to start: its exit code and all it wrote. One that listens after all is
 * killed at once, so the test fails on the code instead of waiting.
 */
export async function failedStart(
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", main], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: await tempFolder("home-"),
      BOXD_INSTANCE_ID: "box-failed-start",
      BOXD_ROOT: await tempFolder(),
      BOXD_PORT: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('"msg":"listening"')) child.kill("SIGKILL");
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  // "close", not "exit": it comes once the output is all read.
  const [code] = (await once(child, "close")) as [number | null];
  return { code, output };
}

async function waitForPort(output: () => string): Promise<number> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const line = output()
      .split("\n")
      .find((text) => text.includes('"msg":"listening"'));
    if (line !== undefined) return (JSON.parse(line) as { port: number }).port;
    if (Date.now() > deadline) throw new Error(`boxd did not listen in time:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Alive and not a zombie (an orphan may wait for an init that never reaps it). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, "utf8");
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return false;
  }
}

/**
 * Whether `pid` is gone within `ms`: a process killed with its parent (a shell whose terminal
 * closed) dies a moment later, asynchronously, so a test must wait for it rather than race it.
 */
export async function exitsWithin(pid: number, ms = 5_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isRunning(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !isRunning(pid);
}

/** Awaits `work` and returns the BoxError code it failed with (fails the test if it succeeded). */
export async function errorCode(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    if (typeof error === "object" && error !== null && "code" in error) return String(error.code);
    throw error;
  }
  throw new Error("expected the call to fail");
}
