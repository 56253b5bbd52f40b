/**
 * Idempotent allocation ([v27], spec/kubernetes.md §8): one Sandbox per allocation, named from
 * the sandbox group and the allocation, created by one POST that carries the three allocation
 * annotations. A POST that finds the name taken (409) reads the standing Sandbox and adopts it
 * only when it is this very allocation — same id, same scope, same execution profile — with no
 * write at all; anything else is refused before anything is patched or woken.
 */
import type { BoxMetadata } from "../../spawner/backend.ts";
import { ALLOCATION_ANNOTATIONS, POD_TEMPLATE_HASH_ANNOTATION } from "./berthKeys.ts";
import {
  AllocationInputError,
  AllocationRefusedError,
  type AllocationField,
} from "./allocationErrors.ts";
import { executionProfileSchema, type ExecutionProfile } from "../../spawner/executionProfile.ts";
import {
  executionProfileFingerprint,
  podTemplateHash,
  type PodTemplate,
} from "./executionProfile.ts";
import { HOLDER_EPOCH_ANNOTATION } from "./holderEpoch.ts";
import type { KubeClient } from "./kubeClient.ts";
import { KubeError } from "./kubeErrors.ts";
import { retrying } from "./kubeRetry.ts";
import {
  SANDBOX,
  apiVersionOf,
  type JsonValue,
  type KubeObject,
  type ObjectMeta,
} from "./kubeObjects.ts";
import type { Operation } from "./operation.ts";
import { derivedNames, sandboxNameFor, type DerivedNames } from "./sandboxNames.ts";
import { sandboxLabels } from "./sandboxLabels.ts";

/** One `spec.volumeClaimTemplates` entry: its name typed, its claim spec opaque. */
export interface VolumeClaimTemplate {
  readonly metadata: { readonly name: string };
  readonly spec: { readonly [key: string]: JsonValue };
}

export interface AllocationRequest {
  /** This Berth's installation id: the scope's first part, and the label inventory selects by. */
  readonly installationId: string;
  readonly sandboxGroupId: string;
  /** The box's metadata; `allocationId` is the idempotency key. */
  readonly metadata: BoxMetadata;
  readonly profile: ExecutionProfile;
  /** The pod template to run, built from the profile (every overlay applied). */
  readonly podTemplate: PodTemplate;
  /** The disks; immutable once created (the CRD's CEL rule). */
  readonly volumeClaimTemplates?: readonly VolumeClaimTemplate[];
  /**
   * The holder epoch stamped in the POST (holderEpoch.ts), so the box is fenced from birth;
   * none leaves the Sandbox unfenced until its first fenced write.
   */
  readonly holderEpoch?: number;
  /** The pause between retried reads after a 409 (default 200 ms). */
  readonly retryIntervalMs?: number;
}

/** What the three allocation annotations say; each undefined when absent. */
export interface AllocationReading {
  readonly id: string | undefined;
  readonly scope: string | undefined;
  readonly executionProfile: string | undefined;
}

export interface Allocation {
  /** `created` by this call's POST, or `adopted`: the same allocation was already there. */
  readonly outcome: "created" | "adopted";
  readonly names: DerivedNames;
  readonly sandbox: KubeObject;
  /** The annotations this allocation carries (equal to the Sandbox's, when adopted). */
  readonly allocation: Required<{ [K in keyof AllocationReading]: string }>;
}

/** Reads the three allocation annotations off an object's metadata. */
export function readAllocation(meta: ObjectMeta | undefined): AllocationReading {
  const annotations = meta?.annotations;
  return {
    id: annotations?.[ALLOCATION_ANNOTATIONS.id],
    scope: annotations?.[ALLOCATION_ANNOTATIONS.scope],
    executionProfile: annotations?.[ALLOCATION_ANNOTATIONS.executionProfile],
  };
}

/**
 * What an allocation is for: the installation, the workspace and the sandbox group. Stored and
 * compared as an opaque string; readable so an operator can tell whose a Sandbox is.
 */
export function allocationScope(parts: {
  readonly installationId: string;
  readonly workspaceId: string;
  readonly sandboxGroupId: string;
}): string {
  return `installation/${parts.installationId}/workspace/${parts.workspaceId}/sandbox-group/${parts.sandboxGroupId}`;
}

/**
 * Makes, or finds, the Sandbox of one allocation. The POST is never retried (a lost answer is
 * settled by the next call's 409); the read after a 409 is, inside `op`'s deadline.
 *
 * @throws AllocationInputError or SandboxNameError before any request, for input that cannot
 *   label or name a Sandbox (or a PVC derived from it)
 * @throws AllocationRefusedError when the name is held by anything but this allocation
 * @throws KubeError for the API's failures (a Sandbox being deleted is a `conflict`)
 */
export async function allocateSandbox(
  client: KubeClient,
  op: Operation,
  request: AllocationRequest,
): Promise<Allocation> {
  const planned = plan(request);
  try {
    const sandbox = await client.create(op, SANDBOX, planned.body);
    return { outcome: "created", names: planned.names, sandbox, allocation: planned.allocation };
  } catch (error) {
    if (!(error instanceof KubeError && error.kind === "conflict")) throw error;
  }
  const name = planned.names.sandbox;
  const beingDeleted = (cause?: unknown): KubeError =>
    new KubeError({
      kind: "conflict",
      request: { verb: "create", resource: SANDBOX.plural, namespace: client.namespace, name },
      message: `Sandbox ${name} is being deleted: allocate again once it is gone`,
      reason: "AlreadyExists",
      cause,
    });
  let standing: KubeObject;
  try {
    standing = await retrying(
      op,
      () => client.get(op, { kind: SANDBOX, name }),
      request.retryIntervalMs ?? 200,
    );
  } catch (error) {
    // Gone between the 409 and the read: a deletion finished. Not "not found" — this call
    // made nothing, and the box it asked for does not exist yet.
    if (error instanceof KubeError && error.kind === "gone") throw beingDeleted(error);
    throw error;
  }
  // Its controller is tearing it down: neither this allocation's to adopt nor gone yet.
  if (standing.metadata.deletionTimestamp != null) throw beingDeleted();
  refuseUnlessSame(name, planned.allocation, readAllocation(standing.metadata));
  return {
    outcome: "adopted",
    names: planned.names,
    sandbox: standing,
    allocation: planned.allocation,
  };
}

/**
 * Refuses a standing allocation that is not `expected`. The order decides which field a refusal
 * names: whose it is first, then for what, then how.
 */
export function refuseUnlessSame(
  name: string,
  expected: Allocation["allocation"],
  actual: AllocationReading,
): void {
  const refuse = (field: AllocationField, want: string, have: string | undefined): never => {
    throw new AllocationRefusedError({ sandboxName: name, field, expected: want, actual: have });
  };
  if (actual.id !== expected.id) refuse("allocation-id", expected.id, actual.id);
  if (actual.scope !== expected.scope) refuse("allocation-scope", expected.scope, actual.scope);
  if (actual.executionProfile !== expected.executionProfile)
    refuse("execution-profile", expected.executionProfile, actual.executionProfile);
}

interface Plan {
  readonly names: DerivedNames;
  readonly allocation: Allocation["allocation"];
  readonly body: KubeObject;
}

/** Everything checked and built before the first request. */
function plan(request: AllocationRequest): Plan {
  const profile = executionProfileSchema.safeParse(request.profile);
  if (!profile.success) {
    const issue = profile.error.issues[0];
    throw new AllocationInputError(
      `profile.${issue?.path.join(".") ?? ""}`,
      issue?.message ?? "is invalid",
    );
  }
  const { metadata, sandboxGroupId, installationId } = request;
  if (metadata.allocationId === "")
    throw new AllocationInputError("metadata.allocationId", "must not be empty");
  const labels = sandboxLabels({ installationId, sandboxGroupId, metadata });
  const templates = request.volumeClaimTemplates ?? [];
  const names = derivedNames(
    sandboxNameFor({ sandboxGroupId, allocationId: metadata.allocationId }),
    templates.map((template) => template.metadata.name),
  );
  const allocation = {
    id: metadata.allocationId,
    scope: allocationScope({ installationId, workspaceId: metadata.workspaceId, sandboxGroupId }),
    executionProfile: executionProfileFingerprint(profile.data, request.podTemplate),
  };
  const body: KubeObject = {
    apiVersion: apiVersionOf(SANDBOX),
    kind: SANDBOX.kind,
    metadata: {
      name: names.sandbox,
      labels,
      annotations: {
        [ALLOCATION_ANNOTATIONS.id]: allocation.id,
        [ALLOCATION_ANNOTATIONS.scope]: allocation.scope,
        [ALLOCATION_ANNOTATIONS.executionProfile]: allocation.executionProfile,
        [POD_TEMPLATE_HASH_ANNOTATION]: podTemplateHash(request.podTemplate),
        ...(request.holderEpoch === undefined
          ? {}
          : { [HOLDER_EPOCH_ANNOTATION]: String(request.holderEpoch) }),
      },
    },
    spec: {
      operatingMode: "Running",
      service: true,
      podTemplate: request.podTemplate,
      ...(templates.length === 0 ? {} : { volumeClaimTemplates: templates }),
    },
  };
  return { names, allocation, body };
}
