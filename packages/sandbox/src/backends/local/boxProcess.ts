import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { chmod, mkdir, open, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import { createBoxClient } from "@berth/box-protocol";
import { BackendError } from "../../spawner/backend.ts";
import {
  MAX_SOCKET_PATH_BYTES,
  socketPathOf,
  type BoxdProcess,
  type BoxLayout,
} from "./boxFolder.ts";
import { bundleProblemOf } from "./boxdEntry.ts";
import { findListeningSocket, lastLines, logSize, rotateIfLarge } from "./boxdLog.ts";
import { NETWORK_HELPER_VARIABLE, startEgress, type ResolvedNetwork } from "./boxNetwork.ts";
import { boxMounts, writeBoxEtc } from "./boxRoot.ts";
import type { BoxUser } from "./boxUsers.ts";
import { joiningCgroups } from "./cgroups/cgroupPrelude.ts";
import { bubblewrapArgv, type ResolvedIsolation } from "./bubblewrap.ts";
import {
  childPids,
  identify,
  isRunning,
  leadsProcessGroup,
  pidsWithEnvironment,
  sendSignal,
} from "../../processes/processInfo.ts";

/**
 * How often a start or stop looks again (a log tail read, a healthz, a /proc stat: each well
 * under a millisecond). A box starts in about 150 ms; every wait rounds up to the next poll.
 */
const POLL_MS = 10;
const LOG_LINES_IN_ERRORS = 20;

export type BoxdLogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace";

export interface BoxdCommand {
  /** boxd's built entry, apps/boxd/dist/main.mjs: its folder is what a box sees at /opt/berth. */
  readonly entry: string;
  readonly logLevel: BoxdLogLevel;
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

/** node with boxd's flags, then boxd's entry (its built bundle). */
export function boxdArgv(command: BoxdCommand): string[] {
  return [process.execPath, ...boxdNodeFlags(command.entry), command.entry];
}

export interface StartBoxdOptions {
  readonly layout: BoxLayout;
  readonly token: string;
  readonly command: BoxdCommand;
  readonly isolation: ResolvedIsolation;
  readonly bwrapPath: string;
  /** The box's network (bubblewrap only; an unisolated box has the host's). */
  readonly network: { readonly mode: ResolvedNetwork; readonly gid?: number };
  /**
   * The host user its commands run as, and the most processes they may run at once (their
   * RLIMIT_NPROC: the limit that holds without cgroups too); null: the control plane's own.
   */
  readonly user: (BoxUser & { readonly processes: number }) | null;
  /** What boxd (and what it runs) inherits; BOXD_* is added here. */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /**
   * The cgroup.procs files of the box's cgroups (cgroups/): the box joins them before bwrap
   * (or an unisolated boxd) runs. None: the box runs in the control plane's.
   */
  readonly cgroupProcs: readonly string[];
  /** What the workspace may hold before boxd refuses writes (BOXD_DISK_BYTES); null: no limit. */
  readonly diskBytes: number | null;
}

/**
 * Starts boxd detached (its own session, stdio on its log file, unref'd) so that it outlives
 * this process, then waits for its `listening` line and a healthz naming this box. boxd gets
 * its token on a pipe and the socket's folder as a descriptor (boxProcess's spawn), so neither
 * the token nor a path into the data folder is ever in what the box can read.
 */
export async function startBoxd(options: StartBoxdOptions): Promise<BoxdProcess> {
  const { layout } = options;
  const bundleProblem = bundleProblemOf(options.command.entry);
  if (bundleProblem !== undefined)
    throw new BackendError({
      code: "invalid",
      message: bundleProblem,
      instanceId: layout.instanceId,
    });
  const socketPath = await prepareSocket(layout);
  if (options.isolation === "bubblewrap")
    await writeBoxEtc({
      folder: layout.etcFolder,
      egress: options.network.mode === "egress",
      user: options.user,
    });
  await rotateIfLarge(layout.logFile);
  const offset = await logSize(layout.logFile);
  const { child, exit } = await spawnDetached(options);
  const deadline = Date.now() + options.timeoutMs;
  try {
    await waitForListening({ layout, offset, exit, deadline });
    const pid = await boxPid({ options, child });
    if (options.network.mode === "egress")
      await startEgress({
        boxPid: pid,
        instanceId: layout.instanceId,
        gid: options.network.gid ?? -1,
        lifeline: stdioAt(child, LIFELINE_FD) as Readable,
        timeoutMs: Math.max(deadline - Date.now(), 1_000),
      });
    await waitForHealth({ layout, socketPath, token: options.token, deadline, exit });
    const identity = await identify(pid);
    return { ...identity, socketPath, startedAt: new Date().toISOString() };
  } catch (error) {
    // Leave nothing half-started behind: the next attempt must not find a stray boxd.
    await killStarted(child, options.isolation);
    if (error instanceof BackendError) throw error;
    throw await startFailure({ layout, reason: String(error), cause: error });
  } finally {
    // Ours of the lifeline: slirp4netns and the box hold theirs.
    stdioAt(child, LIFELINE_FD)?.destroy();
  }
}

/** The socket's folder (0700, outside every box's view), and the path checked to fit. */
async function prepareSocket(layout: BoxLayout): Promise<string> {
  const socketPath = socketPathOf(layout);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES)
    throw new BackendError({
      code: "invalid",
      message: `boxd's socket path ${socketPath} is over ${String(MAX_SOCKET_PATH_BYTES)} bytes (a Unix socket's limit): use a shorter BERTH_DATA_DIR`,
      instanceId: layout.instanceId,
    });
  await mkdir(layout.socketFolder, { recursive: true, mode: 0o700 });
  await chmod(layout.socketFolder, 0o700);
  // A boxd killed outright leaves its socket file: binding again needs the name free.
  await rm(socketPath, { force: true });
  return socketPath;
}

// The descriptors a box starts with, past stdio (3 is bwrap's --info-fd). bwrap hands every one
// to the sandbox.
const TOKEN_FD = 4;
const SOCKET_DIR_FD = 5;
/** Held by the box for as long as it runs; slirp4netns exits when it closes. */
const LIFELINE_FD = 6;

async function spawnDetached(
  options: StartBoxdOptions,
): Promise<{ readonly child: ChildProcess; readonly exit: ExitWatch }> {
  const { layout } = options;
  const bubblewrap = options.isolation === "bubblewrap";
  const env = {
    ...options.env,
    // A bubblewrap box has a home of its own; elsewhere HOME stays the operator's.
    ...(bubblewrap ? { HOME: boxMounts.home } : {}),
    BOXD_TOKEN_FD: String(TOKEN_FD),
    BOXD_SOCKET: layout.socketName,
    BOXD_SOCKET_DIR_FD: String(SOCKET_DIR_FD),
    // killStrays finds a box's processes by it.
    BOXD_INSTANCE_ID: layout.instanceId,
    BOXD_ROOT: bubblewrap ? boxMounts.workspace : layout.workspace,
    ...(options.user === null
      ? {}
      : {
          BOXD_COMMAND_USER: `${String(options.user.uid)}:${String(options.user.gid)}`,
          BOXD_COMMAND_PROCESSES: String(options.user.processes),
        }),
    ...(options.diskBytes === null ? {} : { BOXD_DISK_BYTES: String(options.diskBytes) }),
    LOG_LEVEL: options.command.logLevel,
  };
  const log = await open(layout.logFile, "a", 0o600);
  const info = bubblewrap ? await open(layout.bwrapInfoFile, "w", 0o600) : undefined;
  const socketDir = await open(layout.socketFolder, "r");
  try {
    // A box gets exactly this env; apps whose ambient types demand NODE_ENV in every env
    // (Next.js) would refuse the literal's type, though nothing reads NODE_ENV in a box.
    const processEnv = env as unknown as NodeJS.ProcessEnv;
    const launch: SpawnOptions = {
      cwd: layout.workspace,
      env: processEnv,
      detached: true,
      stdio: [
        "ignore",
        log.fd,
        log.fd,
        info?.fd ?? "ignore",
        "pipe",
        socketDir.fd,
        options.network.mode === "egress" ? "pipe" : "ignore",
      ],
    };
    // In its cgroups from its first instruction: bwrap forks the box's init at once.
    const argv = joiningCgroups(
      options.cgroupProcs,
      bubblewrap ? bubblewrapCommand(options) : boxdArgv(options.command),
    );
    const child = spawn(argv[0] ?? process.execPath, argv.slice(1), launch);
    // Watched before the first await: a failed spawn emits "error" on the next tick.
    const exit = watchExit(child);
    const tokenPipe = stdioAt(child, TOKEN_FD) as Writable | undefined;
    tokenPipe?.on("error", () => undefined);
    tokenPipe?.end(options.token);
    // Neither the child nor its stdio may keep this process alive.
    child.unref();
    return { child, exit };
  } finally {
    // The child holds its own copies: ours would only keep the files open.
    await log.close();
    await info?.close();
    await socketDir.close();
  }
}

/** The child's end of one of its extra descriptors, if it is a pipe. */
function stdioAt(child: ChildProcess, fd: number): Readable | Writable | undefined {
  return (child.stdio as readonly (Readable | Writable | null | undefined)[])[fd] ?? undefined;
}

/** bwrap with its sandbox's arguments, then node running the bundle at /opt/berth. */
function bubblewrapCommand(options: StartBoxdOptions): string[] {
  const { entry } = options.command;
  const bundle = dirname(entry);
  return [
    options.bwrapPath,
    ...bubblewrapArgv(
      {
        workspace: options.layout.workspace,
        bundle,
        nodePty: nodePtyFolder(entry),
        node: process.execPath,
        etc: options.layout.etcFolder,
      },
      { boxUser: options.user !== null },
    ),
    realpathSync(process.execPath),
    ...boxdNodeFlags(entry),
    join(boxMounts.bundle, basename(entry)),
  ];
}

/** node-pty's package folder as the bundle resolves it, if it does. */
function nodePtyFolder(entry: string): string | undefined {
  try {
    return dirname(createRequire(entry).resolve("node-pty/package.json"));
  } catch {
    return undefined;
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

async function waitForListening(wait: {
  readonly layout: BoxLayout;
  readonly offset: number;
  readonly exit: ExitWatch;
  readonly deadline: number;
}): Promise<void> {
  for (;;) {
    if ((await findListeningSocket(wait.layout.logFile, wait.offset)) !== undefined) return;
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
  readonly socketPath: string;
  readonly token: string;
  readonly deadline: number;
  readonly exit: ExitWatch;
}): Promise<void> {
  const { layout, socketPath, token } = wait;
  for (;;) {
    if (await isHealthy({ socketPath, instanceId: layout.instanceId, token })) return;
    const exited = wait.exit.reason();
    if (exited !== undefined || Date.now() >= wait.deadline) {
      const reason = `boxd on ${socketPath} does not answer healthz${exited === undefined ? "" : ` (${exited})`}`;
      throw await startFailure({ layout, reason });
    }
    await delay(POLL_MS);
  }
}

/** boxd answers /healthz on that socket as this box (not some other process that took it). */
export async function isHealthy(probe: {
  readonly socketPath: string;
  readonly instanceId: string;
  readonly token: string;
}): Promise<boolean> {
  const client = createBoxClient({
    socketPath: probe.socketPath,
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
 * boxd must never serve one workspace. They are found by the BOXD_INSTANCE_ID they were started
 * with (an id is unique; bubblewrap's own processes carry it too, so the sandbox init dies, and
 * its whole box with it). Returns the pids killed.
 */
export async function killStrays(layout: BoxLayout): Promise<number[]> {
  // The box's slirp4netns exits when the box does; one still there is ended quietly.
  const helpers = await pidsWithEnvironment([`${NETWORK_HELPER_VARIABLE}=${layout.instanceId}`]);
  for (const pid of helpers) sendSignal(pid, "SIGKILL");
  const strays = await pidsWithEnvironment([`BOXD_INSTANCE_ID=${layout.instanceId}`]);
  for (const pid of strays) {
    if (leadsProcessGroup(pid)) sendSignal(-pid, "SIGKILL");
    sendSignal(pid, "SIGKILL");
  }
  return strays;
}
