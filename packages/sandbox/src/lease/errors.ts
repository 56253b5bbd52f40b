// Every way a lease call can end other than success: errors (thrown, mapped once at the API
// edge) and named outcomes of a lost compare-and-swap (returned, never thrown).
import type { LeaseSnapshot } from "./snapshot.ts";

/** Errors: the call was wrong or its subject does not exist. Nothing was written. */
export const leaseErrorCodes = [
  "invalid_input",
  "session_not_found",
  "lease_not_found",
  "profile_conflict",
  "process_not_acquirable",
] as const;
export type LeaseErrorCode = (typeof leaseErrorCodes)[number];

/** A typed lease error with the context a caller needs to act on it. */
export class LeaseError extends Error {
  override readonly name = "LeaseError";
  readonly code: LeaseErrorCode;
  readonly details: Readonly<Record<string, unknown>>;
  readonly lease: LeaseSnapshot | null;

  constructor(options: {
    code: LeaseErrorCode;
    message: string;
    details?: Record<string, unknown>;
    lease?: LeaseSnapshot | null;
  }) {
    super(options.message);
    this.code = options.code;
    this.details = options.details ?? {};
    this.lease = options.lease ?? null;
  }
}

/** Why an acquire was fenced: the caller holds nothing and should retry later. */
export type FencedReason = "drain_in_progress" | "rotation_in_progress" | "superseded";

/** Why an acquire was blocked: an admin must act (start fresh, or restore another revision). */
export type BlockedReason = "restore_degraded" | "restore_unrecoverable";

/** The result of an arrival. Only `spawner` may create a box, and only for `lease.epoch`. */
export type AcquireOutcome =
  | { readonly role: "spawner"; readonly lease: LeaseSnapshot }
  | { readonly role: "attached"; readonly lease: LeaseSnapshot }
  | { readonly role: "rearmed"; readonly lease: LeaseSnapshot }
  | { readonly role: "fenced"; readonly reason: FencedReason; readonly lease: LeaseSnapshot }
  | { readonly role: "blocked"; readonly reason: BlockedReason; readonly lease: LeaseSnapshot };

/** Why a heartbeat found its holder no longer alive: the caller must stop and re-acquire. */
export type DeadHolderReason = "lease_not_found" | "stale_epoch" | "holder_gone";

export type HeartbeatOutcome =
  | { readonly alive: true; readonly lease: LeaseSnapshot }
  | {
      readonly alive: false;
      readonly reason: DeadHolderReason;
      readonly lease: LeaseSnapshot | null;
    };

/** Names of a lost compare-and-swap on the spawner's path; the row was left untouched. */
export type CasLoss =
  | "lease_not_found"
  | "stale_epoch"
  | "allocation_mismatch"
  | "instance_mismatch"
  | "rematerialization_mismatch"
  | "rematerialization_required"
  | "attempt_conflict"
  | "archive_unavailable"
  | "generation_mismatch"
  | "admissions_unsettled"
  | "workspace_changed_during_capture"
  | "blob_required"
  | "not_rearmable"
  | "not_blocked"
  | "spawn_in_progress"
  | "revision_not_found"
  /** An admin restore's fence: another restore (or a reaper's drain) holds the box's drain claim. */
  | "restore_in_progress"
  | "drain_in_progress"
  /** The restore's own claim is no longer on the lease (it expired and a reaper took over). */
  | "fence_lost"
  /** A drain asked to keep a box the lease did not record with its allocation. */
  | "suspension_invalid"
  /** The spawner asked to take a suspended box the cold lease does not remember. */
  | "suspension_mismatch";

/** A transition that either happened (with the row after it) or lost its CAS (with the row as it is). */
export type CasOutcome<TDone extends string> =
  | { readonly outcome: TDone; readonly lease: LeaseSnapshot }
  | { readonly outcome: "lost"; readonly reason: CasLoss; readonly lease: LeaseSnapshot | null };

export function assertNever(value: never): never {
  throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
}
