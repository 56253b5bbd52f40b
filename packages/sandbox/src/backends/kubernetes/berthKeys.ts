/**
 * The labels and annotations Berth owns on Kubernetes objects, all under one prefix so an
 * operator can tell them from the controller's (`agents.x-k8s.io/…`) and anyone else's.
 */

/** The prefix of every key Berth writes. */
export const BERTH_KEY_PREFIX = "sandbox.berth.dev/";

/**
 * Labels on a Sandbox's own metadata (not its pod template): what inventory selects by and reads
 * `BoxMetadata` back from. The installation label scopes every list, so two Berths sharing a
 * namespace never see (or sweep) each other's boxes.
 */
export const LABELS = {
  installation: "sandbox.berth.dev/installation",
  workspaceId: "sandbox.berth.dev/workspace-id",
  sandboxGroupId: "sandbox.berth.dev/sandbox-group-id",
  leaseId: "sandbox.berth.dev/lease-id",
  /** The warming epoch whose spawner created the Sandbox (BoxMetadata.epoch). */
  epoch: "sandbox.berth.dev/epoch",
  /**
   * On a box taken from a warm pool: the SandboxClaim that took it (warmClaim.ts), which its
   * terminate releases. Absent on a box Berth created itself.
   */
  warmClaim: "sandbox.berth.dev/warm-claim",
} as const;

/**
 * The allocation annotations ([v27], spec/kubernetes.md §8): written once — in the create POST,
 * or for a box taken from a warm pool in the one write that binds it (KubeClient's
 * writeAllocation) — and never in any other PATCH body; a re-allocation compares them to decide
 * adopt or refuse.
 */
export const ALLOCATION_ANNOTATIONS = {
  /** The caller's idempotency key for "this allocation" (BoxMetadata.allocationId). */
  id: "sandbox.berth.dev/allocation-id",
  /** What the allocation is for: installation, workspace and sandbox group (allocationScope). */
  scope: "sandbox.berth.dev/allocation-scope",
  /** `sha256:<hex>` of everything that decides what runs (executionProfileFingerprint). */
  executionProfile: "sandbox.berth.dev/execution-profile",
} as const;

/** `sha256:<hex>` of the pod template as the create POST wrote it (spec §9). */
export const POD_TEMPLATE_HASH_ANNOTATION = "sandbox.berth.dev/pod-template-hash";

/**
 * Keys no PATCH may carry: the client refuses such a patch before sending it, so a later writer
 * that copies an object's annotations into a patch cannot rewrite an allocation by accident.
 */
export const CREATE_ONLY_ANNOTATIONS: readonly string[] = Object.values(ALLOCATION_ANNOTATIONS);

/** RFC 6901: `~` becomes `~0` first, then `/` becomes `~1`. */
export function jsonPointerSegment(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}
