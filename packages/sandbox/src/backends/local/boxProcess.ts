import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { setTimeout as delay } from "node:timers/promises";
import { createBoxClient } from "@berth/box-protocol";
import { BackendError } from "../../spawner/backend.ts";
import type { BoxdProcess, BoxLayout } from "./boxFolder.ts";
import { findListeningPort, lastLines, logSize, rotateIfLarge } from "./boxdLog.ts";
import { bubblewrapArgv, type ResolvedIsolation } from "./bubblewrap.ts";
import {
  childPids,
  identify,
  isRunning,
  leadsProcessGroup,
  pidsWithEnvironment,
  sendSignal,
} from "./processInfo.ts";

/**
 * How often a start or stop looks again (a log tail read, a healthz, a /proc stat: each well
 * under a millisecond). A box starts in about 150 ms; every wait rounds up to the next poll.
 */
const POLL_MS = 10;
const LOG_LINES_IN_ERRORS = 20;

export type BoxdLogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace";

export interface BoxdCommand {
  /** apps/boxd/src/main.ts (run through tsx) or a built .js/.mjs entry. */
  readonly entry: string;
  readonly logLevel: BoxdLogLevel;
}

/** tsx's loader, resolved from boxd's own dependencies, when the entry is TypeScript. */
function tsxLoader(entry: string): string | undefined {
  return entry.endsWith(".ts") ? createRequire(entry).resolve("tsx") : undefined;
}

/**
 * The V8 flags boxd runs with, from apps/boxd/node-flags.json beside its src/ and dist/: boxd's
 * build makes its code cache under the same flags, as V8 refuses a cache made under others.
 * Without the file (an entry shipped elsewhere), none.
 * - `--max-semi-space-size=2`: boxd streams hundreds of MB through small buffers; with a 2 MB
 *   young generation V8 reclaims their garbage as it goes instead of letting ~64 MB pile up
 *   (measured: a 200 MB capture's peak growth fell from ~87 to ~60 MiB, a hydrate's from ~37
 *   to ~21 MiB).
 * - `--single-threaded-gc`: boxd's heap stays small, and V8's helper threads would only contend
 *   for the cores a restore keeps busy inflating, parsing and creating files (measured: a
 *   140 MB hydrate took ~4% less).
 */
function boxdNodeFlags(entry: string): string[] {
  const path = join(dirname(entry), "..", "node-flags.json");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const flags: unknown = JSON.parse(text);
  if (!Array.isArray(flags) || !flags.every((flag) => typeof flag === "string")) {
    throw new Error(`${path}: expected a JSON array of node flags`);
  }
  return flags;
}

/** node with boxd's flags, tsx's loader if needed, then boxd's entry. */
export function boxdArgv(command: BoxdCommand): string[] {
  const loader = tsxLoader(command.entry);
  const node = [process.execPath, ...boxdNodeFlags(command.entry)];
  if (loader === undefined) return [...node, command.entry];
  return [...node, "--import", pathToFileURL(loader).href, command.entry];
}

/** The files boxd needs to start: a sandbox must leave them visible. */
export function boxdFiles(entry: string): string[] {
  const loader = tsxLoader(entry);
  return [process.execPath, entry, ...(loader === undefined ? [] : [loader])];
}

export interface StartBoxdOptions {
  readonly layout: BoxLayout;
  readonly token: string;
  readonly command: BoxdCommand;
  readonly isolation: ResolvedIsolation;
  readonly bwrapPath: string;
  /** For bubblewrap: the data folder and the extra folders to hide. */
  readonly dataDir: string;
  readonly hidden: readonly string[];
  /** What boxd (and what it runs) inherits; BOXD_* is added here. */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

/**
 * Starts boxd detached (its own session, stdio on its log file, unref'd) so that it outlives
 * this process, then waits for its `listening` line and a healthz naming this box.
 */
export async function startBoxd(options: StartBoxdOptions): Promise<BoxdProcess> {
  const { layout } = options;
  await rotateIfLarge(layout.logFile);
  const offset = await logSize(layout.logFile);
  const { child, exit } = await spawnDetached(options);
  const deadline = Date.now() + options.timeoutMs;
  try {
    const port = await waitForPort({ layout, offset, exit, deadline });
    const pid = await boxPid({ options, child });
    await waitForHealth({ layout, port, token: options.token, deadline, exit });
    const identity = await identify(pid);
    return { ...identity, port, startedAt: new Date().toISOString() };
  } catch (error) {
    // Leave nothing half-started behind: the next attempt must not find a stray boxd.
    await killStarted(child, options.isolation);
    if (error instanceof BackendError) throw error;
    throw await startFailure({ layout, reason: String(error), cause: error });
  }
}

async function spawnDetached(
  options: StartBoxdOptions,
): Promise<{ readonly child: ChildProcess; readonly exit: ExitWatch }> {
  const { layout } = options;
  const argv = boxdArgv(options.command);
  const env = {
    ...options.env,
    // A bubblewrap box has a private /tmp; elsewhere HOME stays the operator's.
    ...(options.isolation === "bubblewrap" ? { HOME: "/tmp" } : {}),
    BOXD_TOKEN: options.token,
    // killStrays finds a box's processes by these two.
    BOXD_INSTANCE_ID: layout.instanceId,
    BOXD_ROOT: layout.workspace,
    BOXD_HOST: "127.0.0.1",
    BOXD_PORT: "0",
    LOG_LEVEL: options.command.logLevel,
  };
  const log = await open(layout.logFile, "a", 0o600);
  const info =
    options.isolation === "bubblewrap" ? await open(layout.bwrapInfoFile, "w", 0o600) : undefined;
  try {
    // A box gets exactly this env; apps whose ambient types demand NODE_ENV in every env
    // (Next.js) would refuse the literal's type, though nothing reads NODE_ENV in a box.
    const launch = {
      cwd: layout.workspace,
      env: env as unknown as NodeJS.ProcessEnv,
      detached: true,
    } as const;
    const child =
      info === undefined
        ? spawn(argv[0] ?? process.execPath, argv.slice(1), {
            ...launch,
            stdio: ["ignore", log.fd, log.fd],
          })
        : spawn(
            options.bwrapPath,
            [
              ...bubblewrapArgv({
                dataDir: options.dataDir,
                workspace: layout.workspace,
                hidden: options.hidden,
                needed: boxdFiles(options.command.entry),
              }),
              ...argv,
            ],
            { ...launch, stdio: ["ignore", log.fd, log.fd, info.fd] },
          );
    // Watched before the first await: a failed spawn emits "error" on the next tick.
    const exit = watchExit(child);
    // Neither the child nor its stdio may keep this process alive.
    child.unref();
    return { child, exit };
  } finally {
    // The child holds its own copies: ours would only keep the files open.
    await log.close();
    await info?.close();
  }
}

interface ExitWatch {
  /** Why the launched process ended, once it has. */
  readonly reason: () => string | undefined;
}

function watchExit(child: ChildProcess): ExitWatch {
  let reason: string | undefined;
  child.once("exit", (code, signal) => {
    reason = signal === null ? `exited with code ${String(code)}` : `killed by ${signal}`;
  });
  child.on("error", (error) => {
    reason ??= `could not start: ${error.message}`;
  });
  return { reason: () => reason };
}

async function waitForPort(wait: {
  readonly layout: BoxLayout;
  readonly offset: number;
  readonly exit: ExitWatch;
  readonly deadline: number;
}): Promise<number> {
  for (;;) {
    const port = await findListeningPort(wait.layout.logFile, wait.offset);
    if (port !== undefined) return port;
    const exited = wait.exit.reason();
    if (exited !== undefined) {
      throw await startFailure({ layout: wait.layout, reason: `boxd ${exited} before listening` });
    }
    if (Date.now() >= wait.deadline) {
      throw await startFailure({
        layout: wait.layout,
        reason: "boxd did not report listening in time",
      });
    }
    await delay(POLL_MS);
  }
}

/** The pid that leads the box: bubblewrap's sandbox init (from --info-fd), else boxd itself. */
async function boxPid(started: {
  readonly options: StartBoxdOptions;
  readonly child: ChildProcess;
}): Promise<number> {
  const { child, options } = started;
  if (child.pid === undefined) throw new Error("spawn returned no pid");
  switch (options.isolation) {
    case "none":
      return child.pid;
    case "bubblewrap": {
      const info = JSON.parse(await readFile(options.layout.bwrapInfoFile, "utf8")) as {
        "child-pid"?: unknown;
      };
      const pid = info["child-pid"];
      if (typeof pid !== "number")
        throw new Error(`bwrap reported no child-pid in ${options.layout.bwrapInfoFile}`);
      return pid;
    }
  }
}

async function waitForHealth(wait: {
  readonly layout: BoxLayout;
  readonly port: number;
  readonly token: string;
  readonly deadline: number;
  readonly exit: ExitWatch;
}): Promise<void> {
  for (;;) {
    if (
      await isHealthy({ port: wait.port, instanceId: wait.layout.instanceId, token: wait.token })
    ) {
      return;
    }
    const exited = wait.exit.reason();
    if (exited !== undefined || Date.now() >= wait.deadline) {
      const reason = `boxd on port ${String(wait.port)} does not answer healthz${exited === undefined ? "" : ` (${exited})`}`;
      throw await startFailure({ layout: wait.layout, reason });
    }
    await delay(POLL_MS);
  }
}

/** boxd answers /healthz on that port as this box (not some other process that took the port). */
export async function isHealthy(probe: {
  readonly port: number;
  readonly instanceId: string;
  readonly token: string;
}): Promise<boolean> {
  const client = createBoxClient({
    baseUrl: `http://127.0.0.1:${String(probe.port)}`,
    token: probe.token,
    timeoutMs: 2_000,
  });
  try {
    return (await client.health()).instanceId === probe.instanceId;
  } catch {
    return false;
  }
}

async function startFailure(failure: {
  readonly layout: BoxLayout;
  readonly reason: string;
  readonly cause?: unknown;
}): Promise<BackendError> {
  const lines = await lastLines(failure.layout.logFile, LOG_LINES_IN_ERRORS);
  return new BackendError({
    code: "unavailable",
    message: `boxd of ${failure.layout.instanceId} failed to start: ${failure.reason}; last lines of ${failure.layout.logFile}:\n${lines.join("\n")}`,
    instanceId: failure.layout.instanceId,
    cause: failure.cause,
  });
}

/** Kills what a failed start launched: bwrap's sandbox init takes the whole box with it. */
async function killStarted(child: ChildProcess, isolation: ResolvedIsolation): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  if (isolation === "bubblewrap") {
    for (const init of await childPids(pid)) sendSignal(init, "SIGKILL");
  }
  sendSignal(-pid, "SIGKILL");
}

/**
 * Stops a box's boxd: SIGTERM to the box's process group (boxd shuts down cleanly; under
 * bubblewrap the sandbox init ignores it and exits when boxd does), then SIGKILL after the
 * grace — for bubblewrap, SIGKILL of the sandbox init ends every process in its pid namespace.
 * Resolves once the process is gone.
 */
export async function stopBoxd(stop: {
  readonly boxd: BoxdProcess;
  readonly graceMs: number;
}): Promise<void> {
  const { boxd } = stop;
  if (!(await isRunning(boxd))) return;
  // A group signal only when boxd's pid still leads its group: never signal a stranger's group.
  const target = leadsProcessGroup(boxd.pid) ? -boxd.pid : boxd.pid;
  sendSignal(target, "SIGTERM");
  if (await waitUntilGone(boxd, stop.graceMs)) return;
  if (!(await isRunning(boxd))) return;
  sendSignal(target, "SIGKILL");
  sendSignal(boxd.pid, "SIGKILL");
  if (await waitUntilGone(boxd, 5_000)) return;
  throw new BackendError({
    code: "internal",
    message: `boxd pid ${String(boxd.pid)} survived SIGKILL for 5 s`,
  });
}

async function waitUntilGone(boxd: BoxdProcess, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A zombie counts as gone: it has exited and holds nothing but its pid until reaped.
    if (!(await isRunning(boxd))) return true;
    if (Date.now() >= deadline) return false;
    await delay(POLL_MS);
  }
}

/**
 * Kills every process still serving this box once its recorded boxd is stopped or dead: a
 * control plane that died between starting boxd and recording it leaves one behind, and two
 * boxd must never serve one workspace. They are found by the BOXD_INSTANCE_ID and BOXD_ROOT
 * they were started with (bubblewrap's own processes carry them too, so the sandbox init dies,
 * and its whole box with it). Returns the pids killed.
 */
export async function killStrays(layout: BoxLayout): Promise<number[]> {
  const strays = await pidsWithEnvironment([
    `BOXD_INSTANCE_ID=${layout.instanceId}`,
    `BOXD_ROOT=${layout.workspace}`,
  ]);
  for (const pid of strays) {
    if (leadsProcessGroup(pid)) sendSignal(-pid, "SIGKILL");
    sendSignal(pid, "SIGKILL");
  }
  return strays;
}
