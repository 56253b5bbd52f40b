/**
 * The warm pool's key (issue 38): a warm-pool pod is started by the pool's controller before
 * any box exists, so its boxd cannot be given a box's token. It starts unbound, holding this key
 * from a Secret its template mounts, and takes a token only from a bind proven with the key over
 * its own pod uid (@berth/box-protocol's poolBindProof). The key is HMAC-SHA256 of Berth's secret
 * over the installation, derived again at every start and never stored by Berth; the Secret is
 * where the cluster keeps it for the pods.
 */
import { createHmac } from "node:crypto";
import { V1ObjectMeta, V1Secret } from "@kubernetes/client-node";
import { LABELS } from "./berthKeys.ts";
import type { KubeClient } from "./kubeClient.ts";
import { backendInvalid } from "./kubeBackendErrors.ts";
import { KubeError } from "./kubeErrors.ts";
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
  const meta = new V1ObjectMeta();
  meta.name = POOL_KEY_SECRET;
  meta.labels = { [LABELS.installation]: input.installationId };
  const body = new V1Secret();
  body.apiVersion = "v1";
  body.kind = "Secret";
  body.metadata = meta;
  body.type = "Opaque";
  body.data = { [POOL_KEY_KEY]: encoded };
  try {
    await client.createSecret(op, body);
    return;
  } catch (error) {
    if (!(error instanceof KubeError && error.kind === "conflict")) throw error;
  }
  const standing = await client.getSecret(op, POOL_KEY_SECRET);
  if (standing.data[POOL_KEY_KEY] !== encoded)
    throw backendInvalid(
      `Secret ${POOL_KEY_SECRET} holds another warm-pool key than this installation's (another Berth's, or one made under an older BERTH_SECRET): delete it, and Berth writes its own at the next create`,
    );
}
