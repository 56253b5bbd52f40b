import { z } from "zod";

/**
 * POST /v1/bind: what Berth tells an unbound warm-pool boxd once it has claimed its pod — the
 * box instance it now serves and the token its clients will present. Sent with
 * `Authorization: Bind <poolBindProof(poolKey, podUid)>`, not a bearer token.
 */
export const bindRequestSchema = z.strictObject({
  /** A Kubernetes object name's limit: the instance id names the Sandbox. */
  instanceId: z.string().min(1).max(253),
  token: z.string().min(32, { error: "must be at least 32 characters" }),
});
export type BindRequest = z.infer<typeof bindRequestSchema>;

/** The instance boxd is now bound to (also after a repeated bind with the same binding). */
export const bindResponseSchema = z.object({ instanceId: z.string() });
export type BindResponse = z.infer<typeof bindResponseSchema>;
