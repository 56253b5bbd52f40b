/**
 * The labels a Sandbox carries, and reading BoxMetadata back from them for inventory and the
 * orphan sweep. The installation label is what every list selects by.
 */
import type { BoxMetadata } from "../../spawner/backend.ts";
import { ALLOCATION_ANNOTATIONS, LABELS } from "./berthKeys.ts";
import { AllocationInputError } from "./allocationErrors.ts";
import type { ObjectMeta } from "./kubeObjects.ts";

/** Kubernetes' label value grammar: ≤ 63 characters, alphanumeric at both ends. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** Who a Sandbox is for: the installation, the sandbox group, and the box's metadata. */
export interface SandboxIdentity {
  readonly installationId: string;
  readonly sandboxGroupId: string;
  readonly metadata: BoxMetadata;
}

export function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

/**
 * The Sandbox's labels. Every value must be a non-empty label value (UUIDs are): an id that is
 * not one is refused rather than mangled, since inventory must read it back exactly.
 *
 * @throws AllocationInputError naming the field
 */
export function sandboxLabels(identity: SandboxIdentity): Record<string, string> {
  const { installationId, sandboxGroupId, metadata } = identity;
  if (!Number.isSafeInteger(metadata.epoch) || metadata.epoch < 0) {
    throw new AllocationInputError("metadata.epoch", "must be a non-negative whole number");
  }
  const labels: Record<string, string> = {
    [LABELS.installation]: installationId,
    [LABELS.workspaceId]: metadata.workspaceId,
    [LABELS.sandboxGroupId]: sandboxGroupId,
    [LABELS.leaseId]: metadata.leaseId,
    [LABELS.epoch]: String(metadata.epoch),
  };
  const fields: Record<string, string> = {
    [LABELS.installation]: "installationId",
    [LABELS.workspaceId]: "metadata.workspaceId",
    [LABELS.sandboxGroupId]: "sandboxGroupId",
    [LABELS.leaseId]: "metadata.leaseId",
  };
  for (const [key, value] of Object.entries(labels)) {
    if (value === "" || !isLabelValue(value)) {
      throw new AllocationInputError(
        fields[key] ?? key,
        `${JSON.stringify(value)} is not a label value (1-63 letters, digits, '-', '_', '.'; alphanumeric at both ends)`,
      );
    }
  }
  return labels;
}

/** The label selector of one installation's Sandboxes. */
export function installationSelector(installationId: string): string {
  if (installationId === "" || !isLabelValue(installationId)) {
    throw new AllocationInputError("installationId", "is not a label value");
  }
  return `${LABELS.installation}=${installationId}`;
}

/**
 * Who a Sandbox is for, read from its labels and its allocation-id annotation; undefined when
 * any part is missing or malformed (not Berth's, or damaged — the caller decides what that means).
 */
export function readSandboxIdentity(meta: ObjectMeta): SandboxIdentity | undefined {
  const labels = meta.labels ?? {};
  const installationId = labels[LABELS.installation];
  const workspaceId = labels[LABELS.workspaceId];
  const sandboxGroupId = labels[LABELS.sandboxGroupId];
  const leaseId = labels[LABELS.leaseId];
  const epoch = labels[LABELS.epoch];
  const allocationId = meta.annotations?.[ALLOCATION_ANNOTATIONS.id];
  if (
    installationId === undefined ||
    workspaceId === undefined ||
    sandboxGroupId === undefined ||
    leaseId === undefined ||
    allocationId === undefined ||
    epoch === undefined ||
    !DECIMAL.test(epoch) ||
    !Number.isSafeInteger(Number(epoch))
  ) {
    return undefined;
  }
  return {
    installationId,
    sandboxGroupId,
    metadata: { workspaceId, leaseId, epoch: Number(epoch), allocationId },
  };
}
