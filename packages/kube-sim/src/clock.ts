/** Where the simulator reads the time, so tests can move it without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** RFC 3339 in UTC with second precision, as the API server writes timestamps (§2). */
export function timestamp(clock: Clock): string {
  return clock
    .now()
    .toISOString()
    .replace(/\.\d+Z$/, "Z");
}
