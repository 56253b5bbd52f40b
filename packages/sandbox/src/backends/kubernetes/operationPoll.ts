/**
 * The backend's waits (a suspended pod stopping, a deleted Sandbox going): reads until done,
 * pausing between reads, all inside the operation's one deadline.
 */
import { BackendError } from "../../spawner/backend.ts";
import { KubeError } from "./kubeErrors.ts";
import { retryDelayFor } from "./kubeRetry.ts";
import type { Operation } from "./operation.ts";

/**
 * Reads until `done`; once the deadline is spent, `unavailable` naming what never happened (a
 * later call may see it done). A read the server could not answer now (5xx, throttled, a
 * request timeout) says nothing of what is awaited: the next read asks again, after any
 * Retry-After. Any other failure of a read ends the wait.
 */
export async function pollUntil(
  op: Operation,
  poll: {
    readonly intervalMs: number;
    /** What is awaited, as the deadline's error names it: "the Sandbox was not deleted". */
    readonly waitingFor: string;
    readonly done: () => Promise<boolean>;
  },
): Promise<void> {
  const expired = (cause?: unknown): BackendError =>
    new BackendError({
      code: "unavailable",
      message: `${op.label}: ${poll.waitingFor} within ${String(op.timeoutMs)} ms`,
      cause,
    });
  for (;;) {
    let finished: boolean;
    let pause = poll.intervalMs;
    let failed: unknown;
    try {
      finished = await poll.done();
    } catch (error) {
      // A read the deadline cut short: what never happened is the answer, not the read.
      if (op.cause() !== undefined) throw expired(error);
      const retryIn =
        error instanceof KubeError ? retryDelayFor(error, poll.intervalMs) : undefined;
      if (retryIn === undefined) throw error;
      finished = false;
      pause = retryIn;
      failed = error;
    }
    if (finished) return;
    if (op.cause() !== undefined || op.remainingMs() <= pause) throw expired(failed);
    await op.sleep(pause).catch((error: unknown) => {
      throw expired(error);
    });
  }
}
