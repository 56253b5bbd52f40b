import { median, quantile } from "./stats.ts";

export interface LoadResult {
  readonly ops: number;
  readonly seconds: number;
  readonly opsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * Runs `clients` concurrent loops of `op` for `durationMs`, timing every operation. A failed
 * operation fails the measurement (never a silently faster number).
 */
export async function runClosedLoop(options: {
  clients: number;
  durationMs: number;
  op: (client: number) => Promise<void>;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  const start = performance.now();
  const deadline = start + options.durationMs;
  await Promise.all(
    Array.from({ length: options.clients }, async (_, client) => {
      while (performance.now() < deadline) {
        const began = performance.now();
        await options.op(client);
        latencies.push(performance.now() - began);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return {
    ops: latencies.length,
    seconds,
    opsPerSecond: latencies.length / seconds,
    p50Ms: median(latencies),
    p99Ms: quantile(latencies, 0.99),
  };
}

/** Sums rounds of one side: total ops over total time, and pooled latency quantiles (by rounds' medians). */
export function combineRounds(rounds: readonly LoadResult[]): LoadResult {
  const ops = rounds.reduce((sum, r) => sum + r.ops, 0);
  const seconds = rounds.reduce((sum, r) => sum + r.seconds, 0);
  return {
    ops,
    seconds,
    opsPerSecond: ops / seconds,
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
  };
}

/**
 * Measures two sides in alternating rounds after a warm-up of each, so both see the same
 * machine noise (these machines are shared and noisy).
 */
export async function interleave(options: {
  rounds: number;
  warmup: () => Promise<void>;
  berth: () => Promise<LoadResult>;
  baseline: () => Promise<LoadResult>;
}): Promise<{ berth: LoadResult; baseline: LoadResult }> {
  await options.warmup();
  const berth: LoadResult[] = [];
  const baseline: LoadResult[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    // Alternate which side goes first so neither always runs on a warmer machine.
    if (round % 2 === 0) {
      berth.push(await options.berth());
      baseline.push(await options.baseline());
    } else {
      baseline.push(await options.baseline());
      berth.push(await options.berth());
    }
  }
  return { berth: combineRounds(berth), baseline: combineRounds(baseline) };
}

/**
 * Times `calls` sequential calls of each side in alternating blocks of `block` calls (which side
 * goes first alternates too), so a noisy spell of the machine lands on both sides alike; every
 * call's latency is kept, for quantiles over all of them.
 */
export async function interleaveCalls(options: {
  calls: number;
  block: number;
  berth: () => Promise<unknown>;
  baseline: () => Promise<unknown>;
}): Promise<{ berth: number[]; baseline: number[] }> {
  const times = { berth: [] as number[], baseline: [] as number[] };
  const sides = [
    [times.berth, options.berth],
    [times.baseline, options.baseline],
  ] as const;
  for (let done = 0, round = 0; done < options.calls; done += options.block, round += 1) {
    const size = Math.min(options.block, options.calls - done);
    for (const [latencies, call] of round % 2 === 0 ? sides : [...sides].reverse()) {
      for (let i = 0; i < size; i += 1) {
        const began = performance.now();
        await call();
        latencies.push(performance.now() - began);
      }
    }
  }
  return times;
}
