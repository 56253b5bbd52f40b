// The domain's only public entry.
export { systemClock } from "./clock.ts";
export type { Clock } from "./clock.ts";
export { DatabaseClock } from "./databaseClock.ts";
export * from "./lease/index.ts";
