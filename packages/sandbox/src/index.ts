// The domain's only public entry.
export { RecoveryActions, RestoreRefusedError } from "./admin/recoveryActions.ts";
export type { AdminActor } from "./admin/recoveryActions.ts";
export { systemClock } from "./clock.ts";
export type { Clock } from "./clock.ts";
export { DatabaseClock } from "./databaseClock.ts";
export { checkSandboxEnv, leaseConfigFromEnv, sandboxEnvSchema, sandboxEnvShape } from "./env.ts";
export * from "./lease/index.ts";
export { captureUnavailableDrainPort } from "./reaper/drainPort.ts";
export type { CaptureResult, DrainPort } from "./reaper/drainPort.ts";
export { ReaperSystem } from "./reaper/reaperSystem.ts";
export type { DrainResult, ReaperOptions, SweepReport } from "./reaper/reaperSystem.ts";
