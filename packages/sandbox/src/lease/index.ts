export { defaultLeaseConfig, leaseConfigSchema, turnHolderTtlMs } from "./config.ts";
export type { LeaseConfig } from "./config.ts";
export { assertNever, LeaseError, leaseErrorCodes } from "./errors.ts";
export { blockedReason, isBlocked, MAX_RESTORE_ATTEMPTS } from "./blocking.ts";
export type {
  AcquireOutcome,
  BlockedReason,
  CasLoss,
  CasOutcome,
  DeadHolderReason,
  FencedReason,
  HeartbeatOutcome,
  LeaseErrorCode,
} from "./errors.ts";
export { LeaseSystem } from "./leaseSystem.ts";
export type {
  AcquireInput,
  HeartbeatInput,
  HolderRef,
  ReleaseInput,
  ReleaseOutcome,
} from "./leaseSystem.ts";
export type { LeaseResources } from "./resources.ts";
export type { RecordedConfinement } from "./confinement.ts";
export { isArchiveComplete } from "./snapshot.ts";
export type { LeaseSnapshot } from "./snapshot.ts";
export type { AcquirableHolderKind, HolderKind, LeaseLiveness, RestoreStatus } from "./states.ts";
export { LeaseSweepSystem } from "./sweepSystem.ts";
export type { ExpiredWarming } from "./sweepSystem.ts";
export { WarmingSystem } from "./warmingSystem.ts";
export type {
  CommitWarmInput,
  ConfirmDrainColdInput,
  FailWarmingInput,
  MarkInstanceLostInput,
  RearmInput,
  RecordAllocationInput,
  RecordCreatedInput,
} from "./warmingSystem.ts";
export { AdmissionSystem } from "./admissionSystem.ts";
export type {
  AdmissionRefusal,
  AdmitWriteInput,
  AdmitWriteOutcome,
  SettleOutcome,
} from "./admissionSystem.ts";
export { RecoverySystem, storedArchiveSchema } from "./recoverySystem.ts";
export type {
  BeginRematerializationInput,
  FailRematerializationInput,
  FenceRestoreInput,
  MarkVerifyingInput,
  PublishArchiveInput,
  PublishOutcome,
  RestoreRevisionInput,
  StartFreshInput,
  StoredArchive,
  UnfenceRestoreInput,
} from "./recoverySystem.ts";
export { ProcessHolders } from "./processHolders.ts";
export type { CloseProcessInput, OpenProcessInput } from "./processHolders.ts";
