import { isBlocked } from "../lease/blocking.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";

/** Why a spawn ended without a warm box. The lease is left as the failure table says. */
export const spawnErrorCodes = [
  /** A newer epoch owns the lease: this spawner's box (if any) was terminated, the row untouched. */
  "superseded",
  /** The backend could not create a box: none exists; the lease went cold at epoch+1. */
  "create_failed",
  /** The box never became ready (boxd health + `true`): terminated; cold at epoch+1. */
  "readiness_failed",
  /** The box could not be confirmed terminated: left warming with its instance, for the reaper. */
  "termination_unconfirmed",
  /** The lease has an archive and this spawner has no archive store: nothing created, cold. */
  "archive_restore_unavailable",
  /** The archive cannot be trusted (it missed writes, or is unverified): blocked, nothing created. */
  "restore_blocked",
  /** The restore failed an integrity check (`failureCode`): its box terminated, cold at epoch+1. */
  "restore_failed",
] as const;
export type SpawnErrorCode = (typeof spawnErrorCodes)[number];

export class SpawnError extends Error {
  override readonly name = "SpawnError";
  readonly code: SpawnErrorCode;
  readonly lease: LeaseSnapshot | null;
  /** For restore_failed and restore_blocked: the lease's failure code (e.g. archive_corrupt). */
  readonly failureCode: string | undefined;
  /**
   * Whether the next call may succeed, read from the lease as the failure left it: not when the
   * lease is now blocked (a corrupt archive, a restore out of retries), nor when this spawner
   * cannot restore at all; a retryable restore failure with its one retry left may.
   */
  readonly retryable: boolean;

  constructor(options: {
    code: SpawnErrorCode;
    message: string;
    lease?: LeaseSnapshot | null;
    failureCode?: string;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.code = options.code;
    this.lease = options.lease ?? null;
    this.failureCode = options.failureCode;
    this.retryable =
      options.code !== "restore_blocked" &&
      options.code !== "archive_restore_unavailable" &&
      !(this.lease !== null && isBlocked(this.lease));
  }
}
