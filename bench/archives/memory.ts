import { readdir, readFile } from "node:fs/promises";

const MB = 1024 * 1024;

/**
 * Samples this process's RSS every 10 ms while `work` runs; answers its result and how far the
 * RSS rose above where it started, in MiB. (maxRSS is a lifetime peak, which generating the
 * tree already set far higher, so it cannot show a capture's own growth.)
 */
export async function withRssGrowth<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = process.memoryUsage.rss();
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return [result, (peak - start) / MB];
  } finally {
    clearInterval(timer);
  }
}

/** Host pids serving a box (boxd, and bubblewrap's processes around it), by their environment. */
async function boxPids(instanceId: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, "utf8").catch(() => "");
    if (environ.split("\0").includes(`BOXD_INSTANCE_ID=${instanceId}`)) pids.push(Number(entry));
  }
  return pids;
}

/** The box's peak resident memory so far (the largest VmHWM of its processes), in MiB. */
export async function boxdPeakMb(instanceId: string): Promise<number> {
  let peakKb = 0;
  for (const pid of await boxPids(instanceId)) {
    const status = await readFile(`/proc/${String(pid)}/status`, "utf8").catch(() => "");
    const kb = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
    peakKb = Math.max(peakKb, kb);
  }
  return (peakKb * 1024) / MB;
}
