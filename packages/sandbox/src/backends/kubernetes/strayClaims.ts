/**
 * The orphan sweep's part for warm claims (issue 38). A claim Berth made holds the pool member
 * it bound, and until the box's identity is written on that member no inventory lists it and no
 * lease can record it: a create that died between its claim and that write leaves such a pair.
 * Once older than the horizon (the warming timeout: its spawner's whole budget) the claim is
 * deleted, and its member with it. A claim whose member carries an allocation is a box's: the
 * sweep's rule for boxes judges that Sandbox, and the box's terminate takes the claim.
 */
import type { StraySweep } from "../../spawner/backend.ts";
import { readAllocation } from "./allocation.ts";
import type { KubeClient } from "./kubeClient.ts";
import { KubeError } from "./kubeErrors.ts";
import { SANDBOX, SANDBOX_CLAIM, type KubeObject } from "./kubeObjects.ts";
import type { Operation } from "./operation.ts";
import { installationSelector } from "./sandboxLabels.ts";

export async function sweepStrayClaims(
  client: KubeClient,
  op: Operation,
  input: { readonly installationId: string; readonly horizon: Date },
): Promise<StraySweep> {
  const claims = await client.list(op, SANDBOX_CLAIM, {
    labelSelector: installationSelector(input.installationId),
  });
  const deleted: string[] = [];
  const failed: { instanceId: string; error: string }[] = [];
  for (const claim of claims) {
    const { name, uid, creationTimestamp, deletionTimestamp } = claim.metadata;
    if (deletionTimestamp != null || creationTimestamp === undefined) continue;
    if (new Date(creationTimestamp).getTime() > input.horizon.getTime()) continue;
    try {
      if (await holdsABox(client, op, claim)) continue;
      // With its member (Background): no lease records it, and it never took a write.
      await client.delete(
        op,
        { kind: SANDBOX_CLAIM, name },
        { ...(uid === undefined ? {} : { uid }) },
      );
      deleted.push(`${SANDBOX_CLAIM.kind}/${name}`);
    } catch (error) {
      failed.push({
        instanceId: `${SANDBOX_CLAIM.kind}/${name}`,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return { deleted, failed };
}

/** Whether the Sandbox the claim bound carries an allocation (it is a box, judged as one). */
async function holdsABox(client: KubeClient, op: Operation, claim: KubeObject): Promise<boolean> {
  const status = (claim.status ?? {}) as { sandbox?: { name?: unknown } };
  const bound = status.sandbox?.name;
  if (typeof bound !== "string" || bound === "") return false;
  try {
    const sandbox = await client.get(op, { kind: SANDBOX, name: bound });
    return readAllocation(sandbox.metadata).id !== undefined;
  } catch (error) {
    if (error instanceof KubeError && error.kind === "gone") return false;
    throw error;
  }
}
