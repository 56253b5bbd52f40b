// The local backend: boxes as detached boxd processes on this machine, optionally in bubblewrap.
export { LocalBackend } from "./localBackend.ts";
export type { LocalBackendOptions } from "./localSettings.ts";
export type { LocalIsolation } from "./bubblewrap.ts";
export { probeBubblewrap } from "./bubblewrap.ts";
export type { BubblewrapProbe } from "./bubblewrap.ts";
export type { LocalBackendLogger } from "./logger.ts";
export type { BoxdLogLevel } from "./boxProcess.ts";
