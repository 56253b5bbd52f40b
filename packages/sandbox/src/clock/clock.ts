/**
 * The Clock port: every TTL comparison in Berth takes `now` from here, never from `Date.now()`
 * or SQL `now()`, so tests drive time explicitly and replicas can agree on one clock.
 */
export interface Clock {
  now(): Promise<Date>;
}

/** The local wall clock. Production will read the database clock instead (one per transaction). */
export const systemClock: Clock = {
  now: () => Promise.resolve(new Date()),
};
