/**
 * What decides what runs in a box, and the fingerprints that stand for it (spec/kubernetes.md
 * §8, §9). Both go through the project's one canonical JSON (canonicalFingerprint in
 * @berth/box-protocol), so replicas computing them over the same content agree whatever order
 * their objects were built in.
 */
import { canonicalFingerprint, type CanonicalJsonValue } from "@berth/box-protocol";
import type { ExecutionProfile } from "../../spawner/executionProfile.ts";
import type { JsonValue } from "./kubeObjects.ts";

/** A Sandbox's `spec.podTemplate`: metadata Berth sets, and a pod spec carried as opaque JSON. */
export interface PodTemplate {
  readonly metadata?: {
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec: { readonly [key: string]: JsonValue };
}

/**
 * `sha256:<hex>` of a pod template exactly as it is written (after every overlay), so what the
 * Sandbox runs can later be compared with what Berth would write now.
 */
export function podTemplateHash(podTemplate: PodTemplate): string {
  return canonicalFingerprint(podTemplate as unknown as CanonicalJsonValue);
}

/**
 * The execution-profile fingerprint (the `execution-profile` allocation annotation): the
 * profile together with the hash of the pod template built from it, since the template also
 * carries what the profile does not name (the command, the environment, the mounts). A format
 * version leads, so a later change of what is fingerprinted changes every fingerprint rather
 * than colliding with an old one.
 */
export function executionProfileFingerprint(
  profile: ExecutionProfile,
  podTemplate: PodTemplate,
): string {
  return canonicalFingerprint({
    format: 1,
    profile,
    podTemplateHash: podTemplateHash(podTemplate),
  });
}
