import { BoxServiceError } from "./boxServiceError.ts";

// What a capture asked for by a call answers when it cannot give one: its `retryable` says
// whether the next call may (a busy box) or cannot (no store here).

/** This process has no archive store: no retry here helps. */
export function noStoreAnswer(epoch: number): BoxServiceError {
  return new BoxServiceError({
    code: "capture_unavailable",
    message: "This server has no archive store to capture into.",
    retryable: false,
    epoch,
  });
}

/** Writes kept landing, or the box moved on, while it was captured. */
export function captureRefusedAnswer(reason: string, epoch: number): BoxServiceError {
  return new BoxServiceError({
    code: "capture_refused",
    message: `The capture could not be published (${reason}): writes kept landing or the box moved on; retry when it is quieter.`,
    retryable: true,
    epoch,
    detail: { reason },
  });
}

/** The box could not be captured now (busy, or its store slow). */
export function captureUnavailableAnswer(reason: string, epoch: number): BoxServiceError {
  return new BoxServiceError({
    code: "capture_unavailable",
    message: `The box could not be captured (${reason}); retry shortly.`,
    retryable: true,
    epoch,
  });
}
