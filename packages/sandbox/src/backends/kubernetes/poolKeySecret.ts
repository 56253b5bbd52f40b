/**
 * The warm pool's key (issue 38): a warm-pool pod is started by the pool's controller before
 * any box exists, so its boxd cannot be given a box's token. It starts unbound, holding this key
 * from a Secret its template mounts, and takes a token only from a bind proven with the key over
 * its own pod uid (@berth/box-protocol's poolBindProof). The key is HMAC-SHA256 of Berth's secret
 * over the installation, derived again at every start and never stored by Berth; the Secret is
 * where the cluster keeps it for the pods.
 */
import { createHmac } from "node:crypto";
import type { KubeClient } from "./kubeClient.ts";
import { backendInvalid } from "./kubeBackendErrors.ts";
import { createOpaqueSecret } from "./opaqueSecret.ts";
import type { Operation } from "./operation.ts";

/** The Secret a pool's template mounts (deploy/kubernetes/warm-pool.yaml). */
export const POOL_KEY_SECRET = "berth-warm-pool-key";
/** Its one key, and so the file's name in its volume. */
export const POOL_KEY_KEY = "key";

/** The pool key of one installation: HMAC-SHA256(Berth's secret, "warm-pool:" + id), hex. */
export function poolKey(secret: string, installationId: string): string {
  return createHmac("sha256", secret).update(`warm-pool:${installationId}`, "utf8").digest("hex");
}

/**
 * Makes the pool key's Secret, or finds it made with this very key: one POST, and on 409 one
 * GET. A Secret of that name holding another key (another installation's, or one made under an
 * older BERTH_SECRET) is refused as `invalid`: the pool's pods would refuse every bind, and
 * only an admin can say which key is right.
 */
export async function ensurePoolKeySecret(
  client: KubeClient,
  op: Operation,
  input: { readonly installationId: string; readonly key: string },
): Promise<void> {
  const encoded = Buffer.from(input.key, "utf8").toString("base64");
  const standing = await createOpaqueSecret(client, op, {
    name: POOL_KEY_SECRET,
    installationId: input.installationId,
    key: POOL_KEY_KEY,
    encoded,
  });
  if (standing !== "made" && standing.data[POOL_KEY_KEY] !== encoded)
    throw backendInvalid(
      `Secret ${POOL_KEY_SECRET} holds another warm-pool key than this installation's (another Berth's, or one made under an older BERTH_SECRET): delete it, and Berth writes its own at the next create`,
    );
}
