import { access, mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { isInstanceId } from "../instanceIds.ts";
import { sendSignal } from "../../../processes/processInfo.ts";
import { CgroupError, type CgroupTree } from "./cgroupPort.ts";

// What both cgroup adapters do with control files, and the kernel's tree.

/** How long a removal waits for killed processes to leave their cgroup. */
const REMOVE_TIMEOUT_MS = 5_000;
const POLL_MS = 10;

/** cgroupfs itself: mkdir makes a cgroup, rmdir removes an empty one. */
export function kernelCgroupTree(root = "/sys/fs/cgroup"): CgroupTree {
  return {
    root,
    makeGroup: async (path) => {
      await mkdir(path).catch((error: unknown) => {
        if (errnoOf(error) !== "EEXIST") throw error;
      });
    },
    removeGroup: async (path) => {
      await rmdir(path).catch((error: unknown) => {
        if (errnoOf(error) !== "ENOENT") throw error;
      });
    },
  };
}

export function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

export async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

export async function readControl(path: string): Promise<string> {
  return (await readFile(path, "utf8")).trim();
}

/** A control file's value; a refusal says which file and value. */
export async function writeControl(path: string, value: string): Promise<void> {
  try {
    await writeFile(path, value);
  } catch (error) {
    throw new CgroupError({
      code: "unavailable",
      message: `cannot write ${value} to ${path}: ${error instanceof Error ? error.message : String(error)}`,
      path,
      cause: error,
    });
  }
}

/** The pids listed in a cgroup.procs file ([] when the cgroup is gone). */
export async function readPids(procsFile: string): Promise<number[]> {
  let text: string;
  try {
    text = await readFile(procsFile, "utf8");
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return [];
    throw error;
  }
  return text
    .split("\n")
    .filter((line) => /^\d+$/.test(line.trim()))
    .map((line) => Number(line.trim()));
}

/**
 * A limit as cgroupfs shows it: "max" (v2), "-1" or a figure near 2^63 (v1's unlimited,
 * rounded down to a page) are no limit.
 */
export function parseLimit(text: string): number | null {
  if (text === "max" || text === "-1") return null;
  const value = Number(text);
  if (!Number.isSafeInteger(value)) return null;
  return value;
}

/** The instance ids with a folder under `parent` (nothing when it does not exist yet). */
export async function instanceFolders(parent: string): Promise<string[]> {
  try {
    const entries = await readdir(parent, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isDirectory() && isInstanceId(entry.name))
      .map((entry) => entry.name);
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return [];
    throw error;
  }
}

/** Makes every missing cgroup from the tree's root down to `relative` (one per path part). */
export async function makeChain(options: {
  readonly tree: CgroupTree;
  readonly base: string;
  readonly relative: string;
  /** Called on each cgroup before its child is made (v2 enables controllers there). */
  readonly beforeChild?: (path: string) => Promise<void>;
}): Promise<void> {
  let path = options.base;
  for (const part of options.relative.split("/")) {
    await options.beforeChild?.(path);
    path = join(path, part);
    await options.tree.makeGroup(path);
  }
}

/**
 * SIGKILL to every process in the cgroup: through cgroup.kill where the kernel has it (v2,
 * Linux 5.14+: it also catches a process forking meanwhile), else pid by pid. A pid read from
 * cgroup.procs is a live member at the read; for it to be another process by the kill it must
 * exit and have its pid reused within microseconds, which the kernel's pid allocation (cycling
 * through pid_max) makes as unlikely as for any kill by pid.
 */
async function killMembers(path: string): Promise<void> {
  const kill = join(path, "cgroup.kill");
  if (await exists(kill)) {
    await writeControl(kill, "1");
    return;
  }
  for (const pid of await readPids(join(path, "cgroup.procs"))) sendSignal(pid, "SIGKILL");
}

/**
 * Kills every member of the cgroup at `path` and removes it once the kernel has let them go
 * (rmdir answers EBUSY until then).
 */
export async function removeGroup(tree: CgroupTree, path: string): Promise<void> {
  const deadline = Date.now() + REMOVE_TIMEOUT_MS;
  for (;;) {
    if (!(await exists(path))) return;
    await killMembers(path);
    try {
      await tree.removeGroup(path);
      return;
    } catch (error) {
      if (errnoOf(error) !== "EBUSY") throw error;
    }
    if (Date.now() >= deadline)
      throw new CgroupError({
        code: "busy",
        message: `${path} still holds processes ${String(REMOVE_TIMEOUT_MS / 1000)} s after they were killed`,
        path,
      });
    await delay(POLL_MS);
  }
}

/**
 * Removes the now empty cgroup at `path` (the data folder's parent, once its last box's cgroup
 * went), leaving it where it still has children: a cgroup with child cgroups refuses rmdir.
 * A create racing it finds its parent gone and makes it again (makeBoxGroup).
 */
export async function pruneGroup(tree: CgroupTree, path: string): Promise<void> {
  try {
    await tree.removeGroup(path);
  } catch (error) {
    const code = errnoOf(error);
    if (code !== "EBUSY" && code !== "ENOTEMPTY") throw error;
  }
}

/**
 * Makes a box's cgroup after `setUp` made its parents, again when a removal's prune took a
 * parent away in between (at most a few times: each round needs a prune to race it).
 */
export async function makeBoxGroup(options: {
  readonly tree: CgroupTree;
  readonly paths: readonly string[];
  readonly setUp: () => Promise<void>;
}): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    await options.setUp();
    try {
      for (const path of options.paths) await options.tree.makeGroup(path);
      return;
    } catch (error) {
      if (errnoOf(error) !== "ENOENT" || attempt >= 3) throw error;
    }
  }
}
