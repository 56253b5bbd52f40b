import { z } from "zod";
import { manifestSchema } from "../manifest.ts";

/**
 * Liveness and readiness name the instance boxd serves: "" while a warm-pool boxd is not yet
 * bound to a box (POST /v1/bind), the bound instance after.
 */
export const healthResponseSchema = z.object({ ok: z.literal(true), instanceId: z.string() });
export const readyResponseSchema = z.object({ ready: z.boolean(), instanceId: z.string() });

export const manifestResponseSchema = z.object({
  revision: z.string().regex(/^[0-9a-f]{64}$/),
  manifest: manifestSchema,
});
export type ManifestResponse = z.infer<typeof manifestResponseSchema>;

/** The revision alone, for a caller that only compares it: no list of every entry to send. */
export const revisionResponseSchema = z.object({
  revision: z.string().regex(/^[0-9a-f]{64}$/),
  entries: z.number().int().nonnegative(),
});
export type RevisionResponse = z.infer<typeof revisionResponseSchema>;

export const hydrateResponseSchema = z.object({
  revision: z.string().regex(/^[0-9a-f]{64}$/),
  entries: z.number().int().nonnegative(),
  /** True when the archive carried a manifest and the extracted tree matched it. */
  verified: z.boolean(),
});
export type HydrateResult = z.infer<typeof hydrateResponseSchema>;
