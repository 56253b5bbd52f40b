import { blockedReason } from "../lease/blocking.ts";
import { assertNever, type CasOutcome } from "../lease/errors.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import { BackendNotConfiguredError } from "../spawner/backendRegistry.ts";
import { BackendError } from "../spawner/backend.ts";
import type { SpawnError } from "../spawner/spawnError.ts";
import { BoxServiceError } from "./boxServiceError.ts";

// What a call that met a recovery path answers, derived from the lease row the failing
// transition returned (or the row as it is now): its `retryable` and its message say what the
// next call will do. A lease the next acquire finds blocked is answered `blocked`, whatever
// failed first, so `blocked` always means "an admin must act" and every other code "retry".

/** The first characters of a revision, enough to name it to `berth archives restore`. */
function short(revision: string | null): string {
  return revision === null ? "(none)" : revision.slice(0, 12);
}

/** Why a blocked lease's workspace cannot come back, in words, from its failure code. */
function whyBlocked(lease: LeaseSnapshot): string {
  const code = lease.failureCode;
  switch (code) {
    case "archive_unavailable":
      return "the box was lost and no archive of its workspace exists";
    case "provider_missing_before_capture":
      return "the box was gone before its workspace could be archived";
    case "archive_generation_mismatch":
      return `its newest archive (revision ${short(lease.archiveRevision)}) misses writes made after it`;
    case "archive_unverified":
      return `its archive (revision ${short(lease.selectedRevision ?? lease.archiveRevision)}) could not be verified`;
    case "archive_corrupt":
    case "archive_missing":
    case "archive_metadata_invalid":
    case "workspace_fingerprint_mismatch":
      return `it cannot be restored from revision ${short(lease.selectedRevision)}: ${code}`;
    case null:
      return `restore ${lease.restoreStatus}`;
    default:
      return `restoring revision ${short(lease.selectedRevision)} failed ${String(lease.restoreAttempts)} time(s): ${code}`;
  }
}

/** The answer when the next call will be refused as blocked: an admin must act. */
export function blockedAnswer(
  lease: LeaseSnapshot,
  options: { what?: string; cause?: unknown; detail?: Record<string, unknown> } = {},
): BoxServiceError {
  const what = options.what === undefined ? "" : `${options.what} `;
  return new BoxServiceError({
    code: "blocked",
    message: `${what}This session's workspace cannot be restored (${whyBlocked(lease)}): an admin must restore another revision or start fresh.`,
    retryable: false,
    epoch: lease.epoch,
    detail: {
      restoreStatus: lease.restoreStatus,
      reason: blockedReason(lease) ?? "restore_unrecoverable",
      failureCode: lease.failureCode,
      ...options.detail,
    },
    ...(options.cause === undefined ? {} : { cause: options.cause }),
  });
}

/**
 * A box found gone, after the loss was marked (by this caller, or by another first): retryable
 * only when the mark left the workspace restorable — its archive held every write.
 */
export function lostAnswer(input: {
  marked: CasOutcome<"marked">;
  seen: LeaseSnapshot;
  cause: unknown;
}): BoxServiceError {
  const lease = input.marked.lease ?? input.seen;
  const detail = { marked: input.marked.outcome === "marked" };
  if (blockedReason(lease) !== null)
    return blockedAnswer(lease, { what: "The box is gone.", cause: input.cause, detail });
  return new BoxServiceError({
    code: "instance_lost",
    message:
      "The box is gone; its loss is recorded and the next call brings the workspace back from its archive.",
    retryable: true,
    epoch: lease.epoch,
    detail,
    cause: input.cause,
  });
}

/** What a caller can expect of its next call after a spawn failed this way. */
function nextAfterSpawn(error: SpawnError): string {
  switch (error.code) {
    case "archive_restore_unavailable":
      return "This server has no archive store to restore from: the same call fails until an operator configures one.";
    case "restore_blocked":
      return "An admin must restore another revision or start fresh.";
    case "termination_unconfirmed":
      return "The reaper stops that box once the warming timeout passes; a call meanwhile waits for it, and one after it starts a new box.";
    case "superseded":
      return "Another call owns the box now; retry.";
    case "create_failed":
    case "readiness_failed":
    case "restore_failed":
      return error.lease?.restoreStatus === "degraded"
        ? "The next call tries the restore once more (its one retry)."
        : "Retry.";
    default:
      return assertNever(error.code);
  }
}

/**
 * A spawn that failed: blocked if it left the lease blocked; a create the backend refused for a
 * reason a retry does not change (or changes only later) answers as the backend said — the
 * lease's backend not configured here, `capacity` (retryable), `invalid` or
 * `unreachable_pod_network` (Berth outside the cluster; neither retryable); else `spawn_failed`.
 */
export function spawnAnswer(
  error: SpawnError,
  spawned: LeaseSnapshot,
): BoxServiceError | BackendError | BackendNotConfiguredError {
  const detail = { spawnCode: error.code, failureCode: error.failureCode ?? null };
  const lease = error.lease;
  if (lease !== null && blockedReason(lease) !== null)
    return blockedAnswer(lease, { what: error.message, cause: error, detail });
  // What the backend said when it made (or waited for) the box: a full cluster or a box that can
  // never start as asked reach the caller typed, with their own retryable.
  if (error.code === "create_failed" || error.code === "readiness_failed") {
    const cause = error.cause;
    if (cause instanceof BackendNotConfiguredError) return cause;
    if (
      cause instanceof BackendError &&
      (cause.code === "capacity" ||
        cause.code === "invalid" ||
        cause.code === "unreachable_pod_network")
    )
      return cause;
  }
  return new BoxServiceError({
    code: "spawn_failed",
    message: `${error.message} ${nextAfterSpawn(error)}`,
    retryable: error.retryable,
    epoch: lease?.epoch ?? spawned.epoch,
    detail,
    cause: error,
  });
}
