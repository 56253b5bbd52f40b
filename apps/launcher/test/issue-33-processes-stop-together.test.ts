import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newLaunchNonce } from "@berth/launch-protocol";
import { createTestDatabase } from "@berth/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ForeignServerError, waitUntilServing } from "../src/readiness.ts";
import {
  freePort,
  startCommand,
  startedPids,
  startLauncher,
  untilGone,
  untilRunning,
  type LauncherProcess,
} from "./launcherProcess.ts";

// Issue 33, items 2–4: the processes of one start stop together, and a start never mistakes
// another's for its own. Every start runs on PostgreSQL (DATABASE_URL), as in the issue, on a
// database and a data folder of its own, in production mode (no demo to seed). The three full
// starts the tests need boot side by side, all begun before the first test: each takes seconds,
// mostly the dashboard's.

/** A temporary folder, removed on dispose. */
async function tempFolder(): Promise<{ path: string } & AsyncDisposable> {
  const path = await mkdtemp(join(tmpdir(), "berth-i33-"));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

interface Start {
  readonly process: LauncherProcess;
  readonly databaseUrl: string;
  readonly dataDir: string;
}

/** Disposed after the file's last test, last first (Node 20 has no AsyncDisposableStack). */
const disposables: AsyncDisposable[] = [];
function later<T extends AsyncDisposable>(resource: T): T {
  disposables.push(resource);
  return resource;
}

/** Begins a full start, through `npm start` or the launcher alone. */
async function begin(how: typeof startCommand): Promise<Start> {
  const database = later(await createTestDatabase());
  const dataDir = later(await tempFolder());
  const launcher = later(
    how({
      DATABASE_URL: database.url,
      BERTH_DATA_DIR: dataDir.path,
      PORT: String(await freePort()),
      BERTH_MODE: "production",
      BERTH_SECRET: "i33-".repeat(10),
    }),
  );
  return { process: launcher, databaseUrl: database.url, dataDir: dataDir.path };
}

let viaNpm: Start;
let toKill: Start;
let toInterrupt: Start;

beforeAll(async () => {
  [viaNpm, toKill, toInterrupt] = await Promise.all([
    begin(startCommand),
    begin(startLauncher),
    begin(startCommand),
  ]);
});
afterAll(async () => {
  for (const resource of disposables.reverse()) await resource[Symbol.asyncDispose]();
});

/** The exit code of a start, or "running" if it said Berth is running first. */
async function outcome(launcher: LauncherProcess): Promise<number | null | "running"> {
  return Promise.race([launcher.exited, launcher.running.then(() => "running" as const)]);
}

/** Resolves once the start's output holds `text`. */
async function untilSaid(launcher: LauncherProcess, text: string): Promise<void> {
  while (!launcher.output().includes(text)) {
    if (launcher.child.exitCode !== null) throw new Error(`exited before saying ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function lockHolder(dataDir: string): Promise<number> {
  return Number((await readFile(join(dataDir, "berth.lock"), "utf8")).trim());
}

describe("one `npm start`", () => {
  it("locks its data folder with DATABASE_URL set: a second start on it is refused", async () => {
    await untilRunning(viaNpm.process);
    const first = startedPids(viaNpm.process).launcher;
    expect(await lockHolder(viaNpm.dataDir)).toBe(first);
    await using second = startLauncher({
      DATABASE_URL: viaNpm.databaseUrl,
      BERTH_DATA_DIR: viaNpm.dataDir,
      PORT: String(await freePort()),
      BERTH_DEMO_BOX: "off",
    });
    expect(await outcome(second)).toBe(1);
    expect(second.output()).toContain(
      `Berth is already running on ${viaNpm.dataDir} (pid ${String(first)}). ` +
        `Stop that process, or start this one with another BERTH_DATA_DIR.`,
    );
    expect(second.output()).not.toContain("started web");
  });

  it("refuses a start on its port before anything says Berth is running", async () => {
    const port = new URL(await untilRunning(viaNpm.process)).port;
    await using otherDir = await tempFolder();
    // In demo mode, which would print the sign-in line once running.
    await using other = startLauncher({
      DATABASE_URL: viaNpm.databaseUrl,
      BERTH_DATA_DIR: otherDir.path,
      PORT: port,
      BERTH_DEMO_BOX: "off",
    });
    expect(await outcome(other)).toBe(1);
    expect(other.output()).toContain(
      `Port ${port} on 127.0.0.1 is already in use: another program listens there ` +
        `(an earlier Berth that is still running?). Stop it, or start with another PORT.`,
    );
    for (const line of ["started web", "Berth is running", "Sign in at"])
      expect(other.output()).not.toContain(line);
  });

  it("answers no other start's readiness check, nor does a server that answers anything", async () => {
    const url = await untilRunning(viaNpm.process);
    // This start's web server serves the status procedure, but cannot prove another's nonce.
    const probe = { nonce: newLaunchNonce(), timeoutMs: 10_000, stopped: () => false };
    await expect(waitUntilServing({ ...probe, url })).rejects.toThrow(
      new ForeignServerError(url).message,
    );
    const anything = createServer((_request, response) => response.end("{}"));
    anything.listen(0, "127.0.0.1");
    await once(anything, "listening");
    const other = `http://127.0.0.1:${String((anything.address() as AddressInfo).port)}`;
    try {
      await expect(waitUntilServing({ ...probe, url: other })).rejects.toBeInstanceOf(
        ForeignServerError,
      );
    } finally {
      anything.close();
    }
  });

  it("stops the launcher, web and worker on SIGTERM to the start command's pid", async () => {
    const start = viaNpm.process;
    await untilRunning(start);
    const pids = startedPids(start);
    const npmPid = start.child.pid ?? 0;
    // npm's child is the launcher itself: no shell between them to take the signal and die.
    const stat = await readFile(`/proc/${String(pids.launcher)}/stat`, "utf8");
    expect(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]).toBe(String(npmPid));

    process.kill(npmPid, "SIGTERM");
    await start.exited;
    await untilGone(pids);
    expect(start.output()).toContain('"reason":"SIGTERM","msg":"stopping Berth"');
    expect(start.output()).toContain('"msg":"stopped"');
    await expect(lockHolder(viaNpm.dataDir)).rejects.toThrow(/ENOENT/);
  });
});

describe("the processes of one start stop together", () => {
  it("stops web and worker once a SIGKILLed launcher is gone", async () => {
    const launcher = toKill.process;
    await untilRunning(launcher);
    const { web, worker, launcher: launcherPid } = startedPids(launcher);

    // The launcher alone, not its group: it runs no shutdown of its own.
    process.kill(launcherPid, "SIGKILL");
    await untilGone({ web, worker });
    expect(launcher.output()).toContain("berth web: stopping (launcher gone)");
    expect(launcher.output()).toContain('"reason":"launcher gone","msg":"worker stopping"');
  });

  it("stops everything cleanly on Ctrl-C, however often it reaches the launcher", async () => {
    const start = toInterrupt.process;
    await untilRunning(start);
    const pids = startedPids(start);

    // A terminal's Ctrl-C: SIGINT to the whole foreground process group, and npm forwards its
    // own to the launcher, so the launcher gets two. Another Ctrl-C while it stops makes more:
    // none may kill it halfway through its stop.
    const group = -(start.child.pid ?? 0);
    process.kill(group, "SIGINT");
    await untilSaid(start, '"msg":"stopping Berth"');
    process.kill(group, "SIGINT");
    await start.exited;
    await untilGone(pids);
    expect(start.output()).toContain('"msg":"stopped"');
    await expect(lockHolder(toInterrupt.dataDir)).rejects.toThrow(/ENOENT/);
  });
});
