import { readdir, readFile } from "node:fs/promises";

/** Host pids of processes serving `instanceId` (boxd inside or outside bubblewrap), by environment. */
export async function boxPids(instanceId: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, "utf8").catch(() => "");
    if (environ.split("\0").includes(`BOXD_INSTANCE_ID=${instanceId}`)) pids.push(Number(entry));
  }
  return pids;
}

/**
 * Bytes of the box's largest process (its boxd) from /proc/<pid>/status: `VmRSS` now, or
 * `VmHWM`, its peak so far.
 */
export async function boxMemory(instanceId: string, field: "VmRSS" | "VmHWM"): Promise<number> {
  let most = 0;
  for (const pid of await boxPids(instanceId)) {
    const status = await readFile(`/proc/${String(pid)}/status`, "utf8").catch(() => "");
    const kilobytes = Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? 0);
    most = Math.max(most, kilobytes * 1024);
  }
  return most;
}

/** SIGKILLs every process of a box (boxd and what it runs), as a crash of its machine would. */
export async function killBox(instanceId: string): Promise<void> {
  for (const pid of await boxPids(instanceId)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  }
}
