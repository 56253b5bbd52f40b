/**
 * Retries for callers that may retry (reads, and polls): the client itself never does. A retry
 * spends the operation's deadline and never extends it; a server's Retry-After is honoured,
 * and a pause that could not end before the deadline is not started — the failure that asked
 * for it is reported instead.
 */
import { KubeError, normalizeKubeError } from "./kubeErrors.ts";
import type { Operation } from "./operation.ts";

/** The longest timer Node keeps (2^31 − 1 ms); a longer Retry-After is as good as never. */
const MAX_DELAY_MS = 2_147_483_647;

/**
 * How long to wait before retrying after `error`, or undefined when a retry cannot help:
 * throttled and unavailable answers wait the server's Retry-After (at least `intervalMs`), a
 * request that timed out or found no server waits `intervalMs`; every other kind — including
 * a spent deadline and the caller's abort — is final.
 */
export function retryDelayFor(error: KubeError, intervalMs: number): number | undefined {
  switch (error.kind) {
    case "throttled":
    case "unavailable":
      return Math.min(MAX_DELAY_MS, Math.max(intervalMs, error.retryAfterMs ?? intervalMs));
    case "timeout":
      return error.timeout?.bound === "request" ? intervalMs : undefined;
    case "credential":
    case "gone":
    case "not_served":
    case "conflict":
    case "patch_not_applied":
    case "invalid":
    case "capacity":
    case "aborted":
    case "internal":
      return undefined;
  }
}

/**
 * Runs `attempt` until it succeeds, a failure is final, or the operation's budget cannot cover
 * the next pause. Only for idempotent requests (a GET, a list): a create is never retried.
 *
 * @param intervalMs the pause when the server gives none
 * @throws the last KubeError (or the caller's abort during a pause, as `aborted`)
 */
export async function retrying<T>(
  op: Operation,
  attempt: () => Promise<T>,
  intervalMs: number,
): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof KubeError)) throw error;
      const delay = retryDelayFor(error, intervalMs);
      if (delay === undefined || delay >= op.remainingMs()) throw error;
      try {
        await op.sleep(delay);
      } catch (reason) {
        throw normalizeKubeError(reason, { request: error.request, abort: op.cause() });
      }
    }
  }
}
