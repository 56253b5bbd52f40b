import type { BlockedReason } from "./errors.ts";
import type { LeaseSnapshot } from "./snapshot.ts";

/** Restore attempts a retryable degraded lease may use (berth_lease_acquire's T3 bound). */
export const MAX_RESTORE_ATTEMPTS = 3;

type BlockingFields = Pick<
  LeaseSnapshot,
  "liveness" | "restoreStatus" | "retryable" | "restoreAttempts"
>;

/**
 * Why the next acquire of this lease answers `blocked`, or null when it would not: the test of
 * berth_lease_acquire's T3, read from a row a transition returned. An error derived from it says
 * what the next call will do, not what the failing one hoped.
 */
export function blockedReason(lease: BlockingFields): BlockedReason | null {
  if (lease.liveness !== "cold") return null;
  if (lease.restoreStatus === "unrecoverable") return "restore_unrecoverable";
  const retryLeft = lease.retryable === true && lease.restoreAttempts < MAX_RESTORE_ATTEMPTS;
  if (lease.restoreStatus === "degraded" && !retryLeft) return "restore_degraded";
  return null;
}

export function isBlocked(lease: BlockingFields): boolean {
  return blockedReason(lease) !== null;
}
