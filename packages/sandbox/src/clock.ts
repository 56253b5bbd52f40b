/**
 * The Clock port: every TTL comparison in Berth takes `now` from here and passes it to SQL as
 * `p_now`; lease SQL never calls now() itself, so tests drive time and replicas agree on it.
 */
export interface Clock {
  now(): Promise<Date>;
}
