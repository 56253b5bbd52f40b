/**
 * Why a call on a session's box did not run (or did not finish) — each with whether the same
 * call may simply be retried. Nothing is replayed for the caller: a retry is theirs to make.
 */
export const boxServiceErrorCodes = [
  /** The lease is blocked (its workspace cannot be restored): an admin must act. */
  "blocked",
  /** A newer epoch or route took the box from under the call before it reached the box. */
  "fenced",
  /** The box is gone; the loss was recorded once and the next call brings the workspace back. */
  "instance_lost",
  /** The box did not answer; it may have run the call. Nothing was replayed. */
  "box_unavailable",
  /** The box could not be created or restored (the spawner's code is in `detail`). */
  "spawn_failed",
  /** Someone else's box did not become warm (or drain) within the warming timeout. */
  "wait_timeout",
  /** The session points at a sandbox this build cannot route to. */
  "route_unavailable",
  /** An on-demand capture kept meeting new writes (or the box moved on): retry when quieter. */
  "capture_refused",
  /** Capture is not possible now (no archive store, the box did not answer): retry later. */
  "capture_unavailable",
] as const;
export type BoxServiceErrorCode = (typeof boxServiceErrorCodes)[number];

export class BoxServiceError extends Error {
  override readonly name = "BoxServiceError";
  readonly code: BoxServiceErrorCode;
  readonly retryable: boolean;
  /** The lease's epoch when the call gave up, for the client to compare. */
  readonly epoch: number | undefined;
  readonly detail: Readonly<Record<string, unknown>>;

  constructor(options: {
    code: BoxServiceErrorCode;
    message: string;
    retryable: boolean;
    epoch?: number;
    detail?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.code = options.code;
    this.retryable = options.retryable;
    this.epoch = options.epoch;
    this.detail = options.detail ?? {};
  }
}
