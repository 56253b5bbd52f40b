import { assertNever, type CasLoss } from "../lease/errors.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";

/**
 * Every way an admin's restore of revision R can be refused. None of them selected R or lost a
 * write: a refused restore of a live box leaves the box running (idle, its holders arrive again)
 * with every admitted write still in it or in an archive.
 */
export const restoreRefusalCodes = [
  // It could not go on now.
  "spawn_in_progress",
  "capture_unavailable",
  "writes_in_flight",
  "stop_failed",
  // Someone else moved the lease (a lost compare-and-swap).
  "restore_in_progress",
  "drain_in_progress",
  "stale_epoch",
  "fence_lost",
  // Nothing to restore to.
  "revision_not_found",
  "lease_not_found",
] as const;
export type RestoreRefusalCode = (typeof restoreRefusalCodes)[number];

/** What each refusal tells the admin; `retryable` is what the same request will meet next. */
const refusals: Record<RestoreRefusalCode, { retryable: boolean; message: string }> = {
  spawn_in_progress: {
    retryable: true,
    message: "A box is being created for this session; restore once it is warm.",
  },
  capture_unavailable: {
    retryable: true,
    message:
      "The live box could not be captured now, so it was not stopped: it keeps running with every write. Retry shortly.",
  },
  writes_in_flight: {
    retryable: true,
    message:
      "Writes admitted before the restore are still reaching the box (a long command, say), so it was not captured or stopped. Retry once they finish.",
  },
  stop_failed: {
    retryable: true,
    message:
      "The live box was captured (its workspace is an archive revision now) but did not stop, so nothing was selected. Retry.",
  },
  restore_in_progress: {
    retryable: true,
    message:
      "Another restore is capturing and stopping this box. Once it ends, look at the box again before restoring.",
  },
  drain_in_progress: {
    retryable: true,
    message:
      "The box is being captured and stopped as it idles; retry in a moment (a cold box needs no capture).",
  },
  stale_epoch: {
    retryable: false,
    message: "The box changed since the restore began: look at it again, then choose the revision.",
  },
  fence_lost: {
    retryable: true,
    message:
      "The restore outlasted its claim and the box was drained meanwhile (its workspace is archived); nothing was selected. Retry.",
  },
  revision_not_found: {
    retryable: false,
    message: "No available archive with that revision for this session.",
  },
  lease_not_found: { retryable: false, message: "This session has no box to restore yet." },
};

/** The refusal a lost compare-and-swap on the restore's path stands for. */
function refusalOf(loss: CasLoss): RestoreRefusalCode {
  switch (loss) {
    case "spawn_in_progress":
    case "restore_in_progress":
    case "drain_in_progress":
    case "fence_lost":
    case "revision_not_found":
    case "lease_not_found":
    case "stale_epoch":
      return loss;
    // A capture's publish met a write still settling, or a newer one.
    case "admissions_unsettled":
    case "workspace_changed_during_capture":
      return "writes_in_flight";
    // Not answered on the restore's path; if one were, the lease moved under it.
    case "allocation_mismatch":
    case "instance_mismatch":
    case "rematerialization_mismatch":
    case "rematerialization_required":
    case "attempt_conflict":
    case "archive_unavailable":
    case "generation_mismatch":
    case "blob_required":
    case "not_rearmable":
    case "not_blocked":
    case "suspension_invalid":
    case "suspension_mismatch":
      return "stale_epoch";
    default:
      return assertNever(loss);
  }
}

/** An admin restore that did not select the revision; mapped once, at the API edge. */
export class RestoreRefusedError extends Error {
  override readonly name = "RestoreRefusedError";
  readonly code: RestoreRefusalCode;
  readonly retryable: boolean;
  /** The lease's epoch as the refusal found it, when known. */
  readonly epoch: number | undefined;

  constructor(code: RestoreRefusalCode, options: { detail?: string; epoch?: number } = {}) {
    const refusal = refusals[code];
    super(
      options.detail === undefined ? refusal.message : `${refusal.message} (${options.detail})`,
    );
    this.code = code;
    this.retryable = refusal.retryable;
    this.epoch = options.epoch;
  }

  /** The refusal for a restore whose compare-and-swap was lost. */
  static lost(loss: CasLoss, lease: LeaseSnapshot | null): RestoreRefusedError {
    const code = refusalOf(loss);
    return new RestoreRefusedError(code, {
      ...(code === loss ? {} : { detail: loss }),
      ...(lease === null ? {} : { epoch: lease.epoch }),
    });
  }
}
