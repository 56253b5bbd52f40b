/**
 * Taking a box from an operator's SandboxWarmPool (issue 38). The SandboxClaim carries only the
 * pool's reference and its lifecycle: `env` or volume claim templates would make the controller
 * cold-start a Sandbox instead of handing out a started one. The box is the Sandbox the claim
 * binds — a pool member keeps the name the pool generated, so it is read from the claim's
 * status, never derived. The member was made before any box existed, so its identity (the
 * allocation annotations, Berth's labels, the holder epoch) is written after adoption, once,
 * under the resourceVersion it was read without them; its boxd is bound to the box's token later,
 * when the box is reached (poolBinding.ts).
 *
 * The claim is named after the allocation, as a direct box's Sandbox is: a create sent again
 * (its answer lost, its spawner succeeded) finds its claim by the 409 and adopts what it bound.
 * It stays for the box's life and goes with the box's terminate.
 */
import type { BoxMetadata } from "../../spawner/backend.ts";
import type { ExecutionProfile } from "../../spawner/executionProfile.ts";
import { allocationScope, readAllocation, refuseUnlessSame } from "./allocation.ts";
import { ALLOCATION_ANNOTATIONS, LABELS, POD_TEMPLATE_HASH_ANNOTATION } from "./berthKeys.ts";
import {
  executionProfileFingerprint,
  podTemplateHash,
  type PodTemplate,
} from "./executionProfile.ts";
import { HOLDER_EPOCH_ANNOTATION } from "./holderEpoch.ts";
import type { KubeClient } from "./kubeClient.ts";
import { backendInvalid } from "./kubeBackendErrors.ts";
import { KubeError } from "./kubeErrors.ts";
import { retrying } from "./kubeRetry.ts";
import { SANDBOX, SANDBOX_CLAIM, apiVersionOf, type KubeObject } from "./kubeObjects.ts";
import type { Operation } from "./operation.ts";
import { objectGone } from "./objectGone.ts";
import { pollUntil } from "./operationPoll.ts";
import { sandboxLabels } from "./sandboxLabels.ts";
import { sandboxNameFor } from "./sandboxNames.ts";

/** Ready=False reasons of a claim the controller will not change its mind on. */
const TERMINAL_CLAIM_REASONS = new Set([
  "WarmPoolNotFound",
  "TemplateNotFound",
  "InvalidMetadata",
  "EnvVarsInjectionRejected",
  "VolumeClaimTemplatesError",
  "ClaimExpired",
]);

/** How many times the identity write is tried when the Sandbox moved under it. */
const IDENTITY_WRITE_ATTEMPTS = 5;

export interface WarmClaimRequest {
  readonly installationId: string;
  readonly sandboxGroupId: string;
  readonly metadata: BoxMetadata;
  readonly profile: ExecutionProfile;
  readonly pool: string;
  readonly intervalMs: number;
}

/** The claim of one allocation: the Sandbox name it is derived from, and `-claim`. */
export function warmClaimName(ids: {
  readonly sandboxGroupId: string;
  readonly allocationId: string;
}): string {
  return `${sandboxNameFor(ids)}-claim`;
}

/**
 * The SandboxClaim's POST: `created`, `adopted` (this allocation's claim was there), or
 * `unsettled` when the POST failed without saying whether it made the claim (its caller's
 * cleanup deletes it by name either way).
 */
export async function postWarmClaim(
  client: KubeClient,
  op: Operation,
  request: WarmClaimRequest,
): Promise<{ readonly outcome: "created" | "adopted"; readonly claim: KubeObject }> {
  const { installationId, sandboxGroupId, metadata } = request;
  const name = warmClaimName({ sandboxGroupId, allocationId: metadata.allocationId });
  const scope = allocationScope({
    installationId,
    workspaceId: metadata.workspaceId,
    sandboxGroupId,
  });
  const body: KubeObject = {
    apiVersion: apiVersionOf(SANDBOX_CLAIM),
    kind: SANDBOX_CLAIM.kind,
    metadata: {
      name,
      // The sweep lists claims by these, as it lists Sandboxes.
      labels: sandboxLabels({ installationId, sandboxGroupId, metadata }),
      annotations: {
        [ALLOCATION_ANNOTATIONS.id]: metadata.allocationId,
        [ALLOCATION_ANNOTATIONS.scope]: scope,
      },
    },
    // No shutdownTime: a box sleeps suspended for as long as its lease says, and a clock on the
    // claim would delete its disk under it. The policy says what any expiry takes: everything.
    spec: { warmPoolRef: { name: request.pool }, lifecycle: { shutdownPolicy: "Delete" } },
  };
  try {
    return { outcome: "created", claim: await client.create(op, SANDBOX_CLAIM, body) };
  } catch (error) {
    if (!(error instanceof KubeError && error.kind === "conflict")) throw error;
  }
  const standing = await retrying(
    op,
    () => client.get(op, { kind: SANDBOX_CLAIM, name }),
    request.intervalMs,
  );
  if (standing.metadata.deletionTimestamp != null)
    throw backendInvalid(`SandboxClaim ${name} is being deleted: allocate again once it is gone`);
  const actual = readAllocation(standing.metadata);
  if (actual.id !== metadata.allocationId || actual.scope !== scope)
    throw backendInvalid(
      `SandboxClaim ${name} is another allocation's (${String(actual.id)}): refused, nothing changed`,
    );
  return { outcome: "adopted", claim: standing };
}

/**
 * Waits until the claim names the Sandbox it bound, then writes the box's identity on that
 * Sandbox (or finds this allocation's already there). A claim the controller refused for good
 * (no such pool, a pod metadata it rejects…) is `invalid`, with the controller's words.
 *
 * @returns the bound Sandbox, carrying the box's identity
 */
export async function bindWarmClaim(
  client: KubeClient,
  op: Operation,
  input: {
    readonly request: WarmClaimRequest;
    readonly claim: KubeObject;
    readonly holderEpoch: number;
  },
): Promise<KubeObject> {
  const { request } = input;
  const claimName = input.claim.metadata.name;
  let bound: string | undefined;
  await pollUntil(op, {
    intervalMs: request.intervalMs,
    waitingFor: `SandboxClaim ${claimName} bound no Sandbox`,
    done: async () => {
      const claim = await client.get(op, { kind: SANDBOX_CLAIM, name: claimName });
      const status = claimStatus(claim);
      if (status.failure !== undefined)
        throw backendInvalid(
          `SandboxClaim ${claimName} was refused by the warm pool's controller (${status.failure.reason}): ${status.failure.message}`,
        );
      bound = status.sandboxName;
      return bound !== undefined;
    },
  });
  const sandboxName = bound ?? "";
  for (let attempt = 1; ; attempt++) {
    const sandbox = await retrying(
      op,
      () => client.get(op, { kind: SANDBOX, name: sandboxName }),
      request.intervalMs,
    );
    const owner = sandbox.metadata.ownerReferences?.find((ref) => ref.controller === true);
    if (owner?.uid !== input.claim.metadata.uid)
      throw backendInvalid(
        `Sandbox ${sandboxName}, which SandboxClaim ${claimName} names, is not the claim's: refused`,
      );
    const identity = planIdentity(request, sandbox, { claimName, holderEpoch: input.holderEpoch });
    const standing = readAllocation(sandbox.metadata);
    if (standing.id !== undefined) {
      // Bound by an earlier call for this allocation (its answer was lost): adopted as it is.
      refuseUnlessSame(sandboxName, identity.allocation, standing);
      return sandbox;
    }
    const resourceVersion = sandbox.metadata.resourceVersion;
    if (resourceVersion === undefined)
      throw backendInvalid(`Sandbox ${sandboxName} has no resourceVersion to bind it under`);
    try {
      return await client.writeAllocation(
        op,
        { kind: SANDBOX, name: sandboxName },
        { resourceVersion, labels: identity.labels, annotations: identity.annotations },
      );
    } catch (error) {
      // The controller moved it meanwhile (its adoption's relabel): read it and write again.
      if (!(error instanceof KubeError && error.kind === "conflict")) throw error;
      if (attempt >= IDENTITY_WRITE_ATTEMPTS) throw error;
    }
  }
}

/** What binds the member to this allocation: the annotations a direct box's POST carries. */
function planIdentity(
  request: WarmClaimRequest,
  sandbox: KubeObject,
  extra: { readonly claimName: string; readonly holderEpoch: number },
) {
  const { installationId, sandboxGroupId, metadata, profile } = request;
  const podTemplate = podTemplateOf(sandbox);
  const allocation = {
    id: metadata.allocationId,
    scope: allocationScope({ installationId, workspaceId: metadata.workspaceId, sandboxGroupId }),
    executionProfile: executionProfileFingerprint(profile, podTemplate),
  };
  return {
    allocation,
    labels: {
      ...sandboxLabels({ installationId, sandboxGroupId, metadata }),
      [LABELS.warmClaim]: extra.claimName,
    },
    annotations: {
      [ALLOCATION_ANNOTATIONS.id]: allocation.id,
      [ALLOCATION_ANNOTATIONS.scope]: allocation.scope,
      [ALLOCATION_ANNOTATIONS.executionProfile]: allocation.executionProfile,
      [POD_TEMPLATE_HASH_ANNOTATION]: podTemplateHash(podTemplate),
      // Fenced from its binding on: the claiming spawner's epoch.
      [HOLDER_EPOCH_ANNOTATION]: String(extra.holderEpoch),
    },
  };
}

function podTemplateOf(sandbox: KubeObject): PodTemplate {
  const spec = sandbox.spec as { podTemplate?: PodTemplate } | undefined;
  return spec?.podTemplate ?? { spec: {} };
}

interface ClaimStatus {
  readonly sandboxName: string | undefined;
  readonly failure: { readonly reason: string; readonly message: string } | undefined;
}

/** The two things a claim's status says that Berth acts on. */
function claimStatus(claim: KubeObject): ClaimStatus {
  const status = (claim.status ?? {}) as {
    sandbox?: { name?: unknown };
    conditions?: { type?: unknown; status?: unknown; reason?: unknown; message?: unknown }[];
  };
  const ready = status.conditions?.find((condition) => condition.type === "Ready");
  const reason = typeof ready?.reason === "string" ? ready.reason : "";
  const failed = ready?.status === "False" && TERMINAL_CLAIM_REASONS.has(reason);
  const name = status.sandbox?.name;
  return {
    sandboxName: typeof name === "string" && name !== "" ? name : undefined,
    failure: failed
      ? { reason, message: typeof ready.message === "string" ? ready.message : "" }
      : undefined,
  };
}

/**
 * Deletes the warm claim that took a box, keeping the box, and waits until it is gone: the
 * garbage collector takes its owner reference off the Sandbox first, a write the Sandbox's
 * fenced delete must read before it is sent. A box no claim took: nothing to do.
 */
export async function releaseWarmClaim(
  client: KubeClient,
  op: Operation,
  input: { readonly sandbox: KubeObject; readonly intervalMs: number },
): Promise<void> {
  const name = input.sandbox.metadata.labels?.[LABELS.warmClaim];
  if (name === undefined) return;
  const target = { kind: SANDBOX_CLAIM, name };
  if ((await client.delete(op, target, { propagationPolicy: "Orphan" })) === "already_gone") return;
  await pollUntil(op, {
    intervalMs: input.intervalMs,
    waitingFor: `SandboxClaim ${name} was not deleted`,
    done: () => objectGone(client, op, target),
  });
}
