import type { DbClientOrTx } from "@berth/db";
import type { Clock } from "../clock.ts";
import { leaseConfigSchema, type LeaseConfig } from "./config.ts";
import { parseInput } from "./inputs.ts";

/** What every lease system receives: the database (or a transaction), the clock, the timings. */
export interface LeaseResources {
  readonly db: DbClientOrTx;
  readonly clock: Clock;
  readonly config: LeaseConfig;
}

/** Validates the timings once, when a system is built: a bad TTL is an error before any write. */
export function checkedResources(resources: LeaseResources): LeaseResources {
  return { ...resources, config: parseInput(leaseConfigSchema, resources.config) };
}
