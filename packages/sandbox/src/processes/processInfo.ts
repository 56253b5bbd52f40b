import { readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";

// Processes read from procfs, for whoever must tell whether a process it did not start still
// lives: the local backend (box processes outlive the control plane, so a pid read back from
// box.json may by then name another process, after a reboot or once pids wrap) and lock files
// (holderLock.ts). A process is therefore identified by its pid plus its start time and the boot
// it started in, all read from procfs.

export interface ProcessIdentity {
  readonly pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks after boot); null without procfs. */
  readonly startTicks: string | null;
  /** /proc/sys/kernel/random/boot_id; null without procfs. */
  readonly bootId: string | null;
}

interface ProcStat {
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly startTicks: string;
}

function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    // Read synchronously: procfs answers from kernel memory in microseconds, while the
    // promise API's open, stat, read and close are four thread-pool hops — most of what a
    // connect to a running box costs.
    text = readFileSync(`/proc/${String(pid)}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: the fixed fields start after
  // its last ")", with the state (field 3) first.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [state, ppid, pgrp] = fields;
  const startTicks = fields[19];
  if (state === undefined || ppid === undefined || pgrp === undefined) return undefined;
  if (startTicks === undefined) return undefined;
  return { state, ppid: Number(ppid), pgrp: Number(pgrp), startTicks };
}

let bootIdOnce: Promise<string | null> | undefined;
function currentBootId(): Promise<string | null> {
  bootIdOnce ??= readFile("/proc/sys/kernel/random/boot_id", "utf8").then(
    (text) => text.trim(),
    () => null,
  );
  return bootIdOnce;
}

let procfs: boolean | undefined;
function hasProcfs(): boolean {
  procfs ??= readStat(process.pid) !== undefined;
  return procfs;
}

export async function identify(pid: number): Promise<ProcessIdentity> {
  const stat = readStat(pid);
  return { pid, startTicks: stat?.startTicks ?? null, bootId: await currentBootId() };
}

/** True while that very process lives: same boot, same start time, and not a zombie. */
export async function isRunning(identity: ProcessIdentity): Promise<boolean> {
  const boot = await currentBootId();
  if (identity.bootId !== null && boot !== null && identity.bootId !== boot) return false;
  const stat = readStat(identity.pid);
  if (stat === undefined) {
    // Without procfs (not Linux) a signal-0 probe is all there is.
    return hasProcfs() ? false : signalZero(identity.pid);
  }
  // A zombie has exited: it only waits for a parent that may be gone (or a PID 1 that never reaps).
  if (stat.state === "Z" || stat.state === "X") return false;
  return identity.startTicks === null || identity.startTicks === stat.startTicks;
}

function signalZero(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether pid leads its own process group, so signalling -pid reaches exactly its group. */
export function leadsProcessGroup(pid: number): boolean {
  const stat = readStat(pid);
  // Without procfs, trust the spawn: detached children are started as group leaders.
  if (stat === undefined) return !hasProcfs();
  return stat.pgrp === pid;
}

async function allPids(): Promise<number[]> {
  try {
    return (await readdir("/proc")).filter((name) => /^\d+$/.test(name)).map(Number);
  } catch {
    return [];
  }
}

/** The pids whose parent is `pid` (a scan of /proc: /proc/<pid>/task/<pid>/children is optional in kernels). */
export async function childPids(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const candidate of await allPids()) {
    if (readStat(candidate)?.ppid === pid) children.push(candidate);
  }
  return children;
}

/**
 * The live processes whose environment holds every one of `entries` ("KEY=value"). Only
 * processes of this user (or all, as root) are readable: the ones this backend started.
 * Read synchronously, as readStat is: procfs answers from memory, and an async read is four
 * thread-pool round trips (a scan of 80 processes: ~1 ms against ~12 ms).
 */
export async function pidsWithEnvironment(entries: readonly string[]): Promise<number[]> {
  const found: number[] = [];
  for (const pid of await allPids()) {
    let environ: string;
    try {
      environ = readFileSync(`/proc/${String(pid)}/environ`, "utf8");
    } catch {
      continue;
    }
    const variables = new Set(environ.split("\0"));
    if (!entries.every((entry) => variables.has(entry))) continue;
    const stat = readStat(pid);
    if (stat !== undefined && stat.state !== "Z" && stat.state !== "X") found.push(pid);
  }
  return found;
}

/** Sends a signal, treating "no such process" as done (it may exit at any moment). */
export function sendSignal(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}
