import type { BoxClient } from "@berth/box-protocol";
import { BoxError } from "@berth/box-protocol";
import { BackendError } from "./backend.ts";

/** How long one `true` may take: a box that serves answers in milliseconds. */
const EXEC_PROBE_MS = 5_000;
const DEFAULT_INTERVAL_MS = 100;
/**
 * An attempt is not started with less of the deadline left than this: it could only be cut
 * short, and its deadline error would replace the reason the box last gave.
 */
const MIN_ATTEMPT_MS = 25;

/**
 * A box that is not serving yet, said by an adapter's reach: the wait goes on (until its
 * deadline), and the reason is what the deadline's error names if it never changes.
 */
export class NotServingYet extends Error {
  override readonly name = "NotServingYet";
}

/**
 * The one readiness wait every adapter's `ready` is: reach the box (`reach` answers a client,
 * or throws NotServingYet or a transient error), then prove boxd answers its health check and
 * really runs `true` (exit 0). Everything — reaching, probing, pausing — spends one deadline on
 * the monotonic clock (an in-process wait, not the lease Clock); nothing extends it. A
 * BackendError other than `unavailable` (the box is gone, can never start, or the backend is
 * full) ends the wait at once: waiting longer would not change it.
 *
 * @throws BackendError `unavailable` once the deadline passed, naming the last reason
 */
export async function waitUntilServing(options: {
  readonly instanceId: string;
  readonly reach: (remainingMs: number) => Promise<BoxClient>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly intervalMs?: number;
}): Promise<BoxClient> {
  const { instanceId, signal } = options;
  const deadline = performance.now() + options.timeoutMs;
  const remaining = (): number => Math.max(0, deadline - performance.now());
  let lastError: unknown;
  do {
    signal?.throwIfAborted();
    if (remaining() < MIN_ATTEMPT_MS && lastError !== undefined) {
      // A timer may fire a little early: the wait ends no sooner than its deadline.
      while (remaining() > 0) await pause(Math.ceil(remaining()), signal);
      break;
    }
    try {
      const client = await options.reach(remaining());
      await withinDeadline(client.health(), remaining());
      const result = await client.exec({
        argv: ["true"],
        timeoutMs: Math.max(1, Math.min(EXEC_PROBE_MS, Math.ceil(remaining()))),
      });
      if (result.exitCode === 0) return client;
      lastError = new Error(
        `\`true\` exited ${String(result.exitCode)} (signal ${String(result.signal)})`,
      );
    } catch (error) {
      if (error instanceof BackendError && error.code !== "unavailable") throw error;
      lastError = error;
    }
    await pause(Math.min(options.intervalMs ?? DEFAULT_INTERVAL_MS, remaining()), signal);
  } while (remaining() > 0);
  throw new BackendError({
    code: "unavailable",
    message: `box ${instanceId} did not serve within ${String(options.timeoutMs)} ms: ${
      lastError instanceof Error ? lastError.message : "no answer"
    }`,
    instanceId,
    cause: lastError,
  });
}

/**
 * The health probe, cut at the wait's deadline: a connection to an address whose packets are
 * dropped (a pod IP not routed to Berth) would otherwise hang for the transport's own connect
 * timeout, past the deadline. Cut short, it is a BoxError `timeout` — nothing answered — which
 * an adapter may read as "its address cannot be reached" (kubernetesBackend.ts).
 */
async function withinDeadline<T>(probe: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const cut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new BoxError("timeout", `boxd did not answer within ${String(Math.ceil(ms))} ms`));
    }, ms);
  });
  // The probe left running settles on its own; its late failure is no one's to report.
  probe.catch(() => undefined);
  try {
    return await Promise.race([probe, cut]);
  } finally {
    clearTimeout(timer);
  }
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    const abort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
}
