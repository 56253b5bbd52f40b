// The lease's closed unions (mirrored by SQL CHECKs in @berth/db).
import type { HolderKind } from "@berth/db";

export {
  archiveStatuses,
  boxIsolations,
  boxNetworks,
  holderKinds,
  leaseLivenesses,
  providerStatuses,
  restoreStatuses,
  workspaceStatuses,
} from "@berth/db";
export type {
  ArchiveStatus,
  BoxIsolation,
  BoxNetwork,
  HolderKind,
  LeaseLiveness,
  ProviderStatus,
  RestoreStatus,
  WorkspaceStatus,
} from "@berth/db";

/** Holder kinds a caller may acquire or release; `process` holders follow their process. */
export type AcquirableHolderKind = Exclude<HolderKind, "process">;
