import { z } from "zod";
import { ttlMsSchema } from "./inputs.ts";

/**
 * The lease's timings. The turn-holder horizon is derived: a turn holder is touched every few
 * seconds during its warmup, so only one silent for a whole warming timeout plus a lease TTL is
 * dead (spec §3).
 */
export const leaseConfigSchema = z
  .object({
    leaseTtlMs: ttlMsSchema,
    warmingTimeoutMs: ttlMsSchema,
    idleGraceMs: ttlMsSchema,
    viewerTtlMs: ttlMsSchema,
  })
  .readonly();

export type LeaseConfig = z.infer<typeof leaseConfigSchema>;

export const defaultLeaseConfig: LeaseConfig = {
  leaseTtlMs: 90_000,
  warmingTimeoutMs: 600_000,
  idleGraceMs: 900_000,
  viewerTtlMs: 90_000,
};

export function turnHolderTtlMs(config: LeaseConfig): number {
  return config.warmingTimeoutMs + config.leaseTtlMs;
}
