import { createHmac } from "node:crypto";

/**
 * The proof that binds one warm-pool pod's boxd: hex HMAC-SHA256(poolKey, "bind:" + podUid).
 * Only Berth and the pool's pods hold the pool key; the proof is over the pod uid so a proof
 * seen by one pod binds no other, and the "bind:" prefix keeps it apart from any other use of
 * the same key. It is sent as `Authorization: Bind <proof>` on POST /v1/bind.
 */
export function poolBindProof(poolKey: string, podUid: string): string {
  if (poolKey === "") throw new Error("poolBindProof: the pool key is empty");
  if (podUid === "") throw new Error("poolBindProof: the pod uid is empty");
  return createHmac("sha256", poolKey).update(`bind:${podUid}`, "utf8").digest("hex");
}
