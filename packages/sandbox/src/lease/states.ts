// The lease's closed unions (mirrored by SQL CHECKs in @berth/db) and the predicates over them.
import type { HolderKind, LeaseLiveness, RestoreStatus } from "@berth/db";

export {
  archiveStatuses,
  holderKinds,
  leaseLivenesses,
  providerStatuses,
  restoreStatuses,
  workspaceStatuses,
} from "@berth/db";
export type {
  ArchiveStatus,
  HolderKind,
  LeaseLiveness,
  ProviderStatus,
  RestoreStatus,
  WorkspaceStatus,
} from "@berth/db";

/** Holder kinds a caller may acquire or release; `process` holders follow their process. */
export type AcquirableHolderKind = Exclude<HolderKind, "process">;

/** A box exists (or is being made) for the lease. */
export function hasLiveBox(liveness: LeaseLiveness): boolean {
  switch (liveness) {
    case "cold":
      return false;
    case "warming":
    case "warm":
    case "draining":
      return true;
  }
}

/** Restore states that stop an acquire from electing a spawner (unless a retry is allowed). */
export function isRestoreBlocking(status: RestoreStatus): boolean {
  switch (status) {
    case "degraded":
    case "unrecoverable":
      return true;
    case "not_required":
    case "pending":
    case "restoring":
    case "verifying":
    case "ready":
      return false;
  }
}
