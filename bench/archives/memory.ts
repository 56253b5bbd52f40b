import { boxMemory } from "@berth/sandbox/testing";

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

/** The box's peak resident memory so far (the largest VmHWM of its processes), in MiB. */
export async function boxdPeakMb(instanceId: string): Promise<number> {
  return (await boxMemory(instanceId, "VmHWM")) / MB;
}
