import { boxMemory } from "@berth/sandbox/testing";

const MB = 1024 * 1024;

/**
 * Samples this process's RSS every 10 ms from `start` until `stop`, which answers how far it
 * rose above where it started, in MiB. (maxRSS is a lifetime peak, which generating the tree
 * already set far higher, so it cannot show a capture's own growth.)
 */
export class RssGrowth {
  readonly #start = process.memoryUsage.rss();
  #peak = this.#start;
  // Unref'd: a cycle that fails between its start and stop must not keep the process alive.
  readonly #timer = setInterval(() => {
    this.#sample();
  }, 10).unref();

  private constructor() {}

  static start(): RssGrowth {
    return new RssGrowth();
  }

  /** Stops sampling; answers the growth in MiB. */
  stop(): number {
    clearInterval(this.#timer);
    this.#sample();
    return (this.#peak - this.#start) / MB;
  }

  #sample(): void {
    this.#peak = Math.max(this.#peak, process.memoryUsage.rss());
  }
}

/** Runs `work` under an RssGrowth; answers its result and the growth, in MiB. */
export async function withRssGrowth<T>(work: () => Promise<T>): Promise<[T, number]> {
  const growth = RssGrowth.start();
  try {
    const result = await work();
    return [result, growth.stop()];
  } finally {
    growth.stop();
  }
}

/** The box's peak resident memory so far (the largest VmHWM of its processes), in MiB. */
export async function boxdPeakMb(instanceId: string): Promise<number> {
  return (await boxMemory(instanceId, "VmHWM")) / MB;
}
