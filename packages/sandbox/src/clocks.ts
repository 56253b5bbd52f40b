// The Clock port and its production implementation, for callers that need time but not boxes.
export type { Clock } from "./clock.ts";
export { DatabaseClock } from "./databaseClock.ts";
