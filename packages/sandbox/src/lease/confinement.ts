import { z } from "zod";
import { boxIsolations, boxNetworks } from "./states.ts";

const INT4_MAX = 2_147_483_647;

/** A limit as its column holds it: positive, or null for no limit. */
function limit(max: number) {
  return z.number().int().positive().max(max).nullable();
}

/**
 * What a box was given, as the lease records it with the box (the Backend port's
 * BoxConfinement: lease/ imports no sibling folder, so it checks the shape itself). Counts fit
 * the int columns, byte sizes the bigint ones as far as a JavaScript number is exact.
 */
export const confinementSchema = z.object({
  isolation: z.enum(boxIsolations),
  network: z.enum(boxNetworks),
  limits: z.object({
    processes: limit(INT4_MAX),
    memoryBytes: limit(Number.MAX_SAFE_INTEGER),
    cpuWeight: limit(INT4_MAX),
    diskBytes: limit(Number.MAX_SAFE_INTEGER),
  }),
});

/** What the lease recorded of its box: isolation, network and limits (null: no limit). */
export type RecordedConfinement = z.output<typeof confinementSchema>;
