/** Typed reads of the untyped objects the controllers handle, and the condition helpers. */
import type { KubeObject, OwnerReference } from "../objects.ts";
import { isObject, meta } from "../objects.ts";

export const LABEL = {
  nameHash: "agents.x-k8s.io/sandbox-name-hash",
  warmPool: "agents.x-k8s.io/warm-pool-sandbox",
  templateRefHash: "agents.x-k8s.io/sandbox-template-ref-hash",
  launchType: "agents.x-k8s.io/launch-type",
  createdBy: "agents.x-k8s.io/created-by",
  claimUid: "agents.x-k8s.io/claim-uid",
  templateHash: "agents.x-k8s.io/sandbox-template-hash",
  podTemplateHash: "agents.x-k8s.io/sandbox-pod-template-hash",
  /** On a PVC (label or annotation): the Sandbox controller may take it over (A3). */
  adoptable: "agents.x-k8s.io/adoptable",
} as const;

export const ANNOTATION = {
  podName: "agents.x-k8s.io/pod-name",
  templateRef: "agents.x-k8s.io/sandbox-template-ref",
  sandboxName: "agents.x-k8s.io/sandbox-name",
  propagatedLabels: "agents.x-k8s.io/propagated-labels",
  propagatedAnnotations: "agents.x-k8s.io/propagated-annotations",
  safeToEvict: "cluster-autoscaler.kubernetes.io/safe-to-evict",
  firstObservedAt: "agents.x-k8s.io/controller-first-observed-at",
  firstReadyAt: "agents.x-k8s.io/claim-first-ready-at",
} as const;

export function record(value: unknown): KubeObject {
  return isObject(value) ? value : {};
}

export function list(value: unknown): KubeObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export const spec = (object: KubeObject): KubeObject => record(object.spec);
export const status = (object: KubeObject): KubeObject => record(object.status);

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

export function conditions(object: KubeObject): Condition[] {
  return list(status(object).conditions) as unknown as Condition[];
}

export function condition(object: KubeObject, type: string): Condition | undefined {
  return conditions(object).find((c) => c.type === type);
}

/**
 * `meta.SetStatusCondition`: replaces the condition of that type, keeping `lastTransitionTime`
 * unless the status flips.
 */
export function setCondition(existing: Condition[], next: Condition, now: string): Condition[] {
  const old = existing.find((c) => c.type === next.type);
  const lastTransitionTime =
    old !== undefined && old.status === next.status ? (old.lastTransitionTime ?? now) : now;
  const merged = { ...next, lastTransitionTime };
  return old === undefined
    ? [...existing, merged]
    : existing.map((c) => (c.type === next.type ? merged : c));
}

export function controllerOf(object: KubeObject | undefined): OwnerReference | undefined {
  if (object === undefined) return undefined;
  return (meta(object).ownerReferences ?? []).find((ref) => ref.controller === true);
}

export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  return controllerOf(object)?.uid === meta(owner).uid;
}

/** controller-runtime's `SetControllerReference` shape (§4.9). */
export function controllerRef(owner: KubeObject): OwnerReference {
  const metadata = meta(owner);
  return {
    apiVersion: str(owner.apiVersion) ?? "",
    kind: str(owner.kind) ?? "",
    name: metadata.name ?? "",
    uid: metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

export const isDeleting = (object: KubeObject): boolean =>
  meta(object).deletionTimestamp !== undefined;
