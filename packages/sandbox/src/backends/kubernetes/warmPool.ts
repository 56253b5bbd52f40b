/**
 * The operator's SandboxWarmPool (BERTH_KUBE_WARM_POOL), read before each create: a pool with a
 * Ready member is claimed from (warmClaim.ts); an empty one is passed over for a direct create,
 * which starts as fast as the claim's own cold start would and needs no binding.
 */
import type { KubeClient } from "./kubeClient.ts";
import { backendInvalid } from "./kubeBackendErrors.ts";
import { KubeError } from "./kubeErrors.ts";
import { SANDBOX_WARM_POOL } from "./kubeObjects.ts";
import type { Operation } from "./operation.ts";

/** How many of the pool's members are Ready now (its status, as its controller last wrote it). */
export async function readyPoolMembers(
  client: KubeClient,
  op: Operation,
  pool: string,
): Promise<number> {
  let object;
  try {
    object = await client.get(op, { kind: SANDBOX_WARM_POOL, name: pool });
  } catch (error) {
    if (error instanceof KubeError && error.kind === "gone")
      throw backendInvalid(
        `SandboxWarmPool ${pool} (BERTH_KUBE_WARM_POOL) is not in namespace ${client.namespace}: apply it (deploy/kubernetes/warm-pool.yaml) or unset BERTH_KUBE_WARM_POOL`,
      );
    throw error;
  }
  const status = (object.status ?? {}) as { readyReplicas?: unknown };
  return typeof status.readyReplicas === "number" ? status.readyReplicas : 0;
}
