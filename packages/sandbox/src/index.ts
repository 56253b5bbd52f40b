// The domain's only public entry.
export { RecoveryActions } from "./admin/recoveryActions.ts";
export type { AdminActor, RecoveryActionsOptions } from "./admin/recoveryActions.ts";
export { RestoreRefusedError, restoreRefusalCodes } from "./admin/restoreRefusedError.ts";
export type { RestoreRefusalCode } from "./admin/restoreRefusedError.ts";
export type { Clock } from "./clock.ts";
export { DatabaseClock } from "./databaseClock.ts";
export {
  backendEnvShape,
  checkSandboxEnv,
  leaseConfigFromEnv,
  sandboxEnvSchema,
  sandboxEnvShape,
} from "./env.ts";
export {
  BackendNotConfiguredError,
  BackendRegistry,
  backendKinds,
} from "./spawner/backendRegistry.ts";
export type { BackendKind, NamesBackend } from "./spawner/backendRegistry.ts";
export { backendsFromEnv } from "./backends/backendsFromEnv.ts";
export { checkKubeEnv, kubeEnvShape, kubernetesConfigured } from "./backends/kubeEnv.ts";
export type { KubeEnv } from "./backends/kubeEnv.ts";
export {
  ensureInstallationId,
  installationIdFile,
  InstallationMismatchError,
  lazyInstallationId,
} from "./backends/installationId.ts";
export type { ConfiguredBackends, KubernetesBackendSettings } from "./backends/backendsFromEnv.ts";
export * from "./archives/index.ts";
export * from "./lease/index.ts";
export * from "./machines/index.ts";
export { captureUnavailableDrainPort } from "./reaper/drainPort.ts";
export type { CaptureResult, DrainPort } from "./reaper/drainPort.ts";
export { ReaperSystem } from "./reaper/reaperSystem.ts";
export { IsolationRotationSystem } from "./reaper/isolationRotation.ts";
export type {
  IsolationRotationOptions,
  IsolationRotationReport,
} from "./reaper/isolationRotation.ts";
export type { DrainResult, ReaperOptions, SweepReport } from "./reaper/reaperSystem.ts";
export {
  backendAnswerCodes,
  BackendError,
  backendErrorAnswers,
  backendErrorCodes,
  noBoxLimits,
} from "./spawner/backend.ts";
export type { BackendAnswerCode } from "./spawner/backend.ts";
export type {
  Backend,
  BackendErrorCode,
  BoxConfinement,
  BoxInfo,
  StraySweep,
  BoxIsolation,
  BoxLimits,
  BoxMetadata,
  BoxNetwork,
  BoxState,
  BoxWrite,
  CreateBoxInput,
  CreatedBox,
  ReadyOptions,
} from "./spawner/backend.ts";
export {
  executionProfileSchema,
  localExecutionProfile,
  profileFingerprint,
} from "./spawner/executionProfile.ts";
export type { ExecutionProfile } from "./spawner/executionProfile.ts";
export { OrphanSweepSystem } from "./spawner/orphanSweep.ts";
export type { OrphanSweepReport } from "./spawner/orphanSweep.ts";
export { SpawnError, spawnErrorCodes } from "./spawner/spawnError.ts";
export type { SpawnErrorCode } from "./spawner/spawnError.ts";
export { SpawnerSystem } from "./spawner/spawnerSystem.ts";
export type { EstablishedBox, SpawnerOptions } from "./spawner/spawnerSystem.ts";
export { backendDrainPort } from "./reaper/backendDrainPort.ts";
export { LocalBackend, probeBubblewrap } from "./backends/local/index.ts";
export type {
  BoxdLogLevel,
  BubblewrapProbe,
  LocalBackendLogger,
  LocalBackendOptions,
  LocalIsolation,
} from "./backends/local/index.ts";
export { defaultBoxdEntry } from "./backends/local/boxdEntry.ts";
export { boxdArgv } from "./backends/local/boxProcess.ts";
export { BoxAccess } from "./services/boxAccess.ts";
export type { BoxAccessOptions, BoxCall, BoxHandle } from "./services/boxAccess.ts";
export type { MachineClients } from "./services/machineBox.ts";
export type { RoutedTo } from "./routing/routedTo.ts";
export {
  readSessionSwaps,
  swapSession,
  type SessionSwapEvent,
  type SwapOutcome,
  type SwapTarget,
} from "./routing/sessionSwap.ts";
export type { LeaseWakeup, LeaseWakeups } from "./services/leaseWakeups.ts";
export { BoxServiceError, boxServiceErrorCodes } from "./services/boxServiceError.ts";
export type { BoxServiceErrorCode } from "./services/boxServiceError.ts";
export { RouteStep } from "./routing/routeStep.ts";
export type { CallHolder, Route } from "./routing/routeStep.ts";
