/**
 * The execution profile: what decides what runs in a box — the template it is made from, its
 * image, its resources and its runtime class. Every backend's `create` receives one; a box
 * keeps the profile it was made with, and a second create of the same allocation under another
 * profile is refused, never adopted (the box would not run what the caller asked for).
 */
import { canonicalFingerprint } from "@berth/box-protocol";
import { z } from "zod";

const quantities = z.record(z.string().min(1), z.string().min(1));

export const executionProfileSchema = z.strictObject({
  /** The template the box is made from (a Berth template, or a SandboxTemplate's name). */
  template: z.string().min(1).max(253),
  image: z.string().min(1).max(512),
  /** Resource quantities, as a Kubernetes container's `resources` spells them. */
  resources: z.strictObject({
    requests: quantities.optional(),
    limits: quantities.optional(),
  }),
  /** The pod's `runtimeClassName` (gVisor, Kata, …); absent means the cluster's default. */
  runtimeClassName: z.string().min(1).max(253).optional(),
});
export type ExecutionProfile = z.infer<typeof executionProfileSchema>;

/**
 * What a local box runs: the boxd bundle this checkout built, under the local backend's own
 * isolation and limits (set by its configuration, not by the profile's quantities).
 */
export const localExecutionProfile: ExecutionProfile = {
  template: "local",
  image: "berth-boxd",
  resources: {},
};

/** `sha256:<hex>` of the profile's canonical JSON: equal exactly when the profiles are. */
export function profileFingerprint(profile: ExecutionProfile): string {
  return canonicalFingerprint(profile);
}
