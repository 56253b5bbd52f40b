/**
 * Binding a warm-pool pod's boxd to its box (issue 38): the pod started unbound, holding the
 * pool key (poolKeySecret.ts); Berth proves the key over the pod's uid and hands boxd the box's
 * name and token. Sent whenever a pooled box is reached: a bind boxd already has is answered
 * again, and a pod that started anew (a resume, a restarted container) is unbound again.
 */
import { BoxError, bindBox, poolBindProof } from "@berth/box-protocol";
import { NotServingYet } from "../../spawner/readiness.ts";
import { backendInvalid } from "./kubeBackendErrors.ts";

export async function bindPooledBoxd(input: {
  readonly baseUrl: string;
  readonly podUid: string;
  readonly poolKey: string;
  readonly instanceId: string;
  readonly token: string;
  readonly signal: AbortSignal;
}): Promise<void> {
  const { instanceId } = input;
  try {
    await bindBox({
      baseUrl: input.baseUrl,
      podUid: input.podUid,
      proof: poolBindProof(input.poolKey, input.podUid),
      instanceId,
      token: input.token,
      signal: input.signal,
    });
  } catch (error) {
    if (!(error instanceof BoxError)) throw error;
    throw refusal(error, instanceId);
  }
}

/** What a failed bind means for the wait: a refusal for good, or not serving yet. */
function refusal(error: BoxError, instanceId: string): Error {
  if (error.code === "unauthorized")
    return backendInvalid(
      `box ${instanceId}'s boxd refused the warm pool's key: its pod mounts another key than this installation's (Secret berth-warm-pool-key was replaced?); delete the pool's pods so they start with the current key`,
      instanceId,
    );
  if (error.code === "already_exists")
    return backendInvalid(
      `box ${instanceId}'s boxd is bound to another box: refusing to use it`,
      instanceId,
    );
  if (error.code === "invalid_request")
    return backendInvalid(
      `box ${instanceId}'s boxd takes no bind (${error.message}): the warm pool's template must start boxd with BOXD_POOL_KEY_FILE (deploy/kubernetes/warm-pool.yaml)`,
      instanceId,
    );
  // Not answering yet, or the pod at the address is being replaced: the wait reads again.
  return new NotServingYet(`box ${instanceId}'s boxd was not bound: ${error.message}`);
}
