/**
 * The one way Berth makes a Secret of its own (a box's token, the warm pool's key): an Opaque
 * Secret labelled with the installation, one key, made by one POST; on 409 the standing one is
 * read once and handed to the caller, who decides whether it is the same Secret.
 */
import { V1ObjectMeta, V1Secret, type V1OwnerReference } from "@kubernetes/client-node";
import { LABELS } from "./berthKeys.ts";
import type { KubeClient } from "./kubeClient.ts";
import { KubeError } from "./kubeErrors.ts";
import type { SecretReading } from "./kubeObjects.ts";
import type { Operation } from "./operation.ts";

export interface OpaqueSecret {
  readonly name: string;
  readonly installationId: string;
  readonly owner?: V1OwnerReference;
  readonly key: string;
  /** The value, as the API keeps it (base64). */
  readonly encoded: string;
}

/** `made`, or the Secret already standing under that name (whoever made it). */
export async function createOpaqueSecret(
  client: KubeClient,
  op: Operation,
  secret: OpaqueSecret,
): Promise<"made" | SecretReading> {
  const meta = new V1ObjectMeta();
  meta.name = secret.name;
  meta.labels = { [LABELS.installation]: secret.installationId };
  if (secret.owner !== undefined) meta.ownerReferences = [secret.owner];
  const body = new V1Secret();
  body.apiVersion = "v1";
  body.kind = "Secret";
  body.metadata = meta;
  body.type = "Opaque";
  body.data = { [secret.key]: secret.encoded };
  try {
    await client.createSecret(op, body);
    return "made";
  } catch (error) {
    if (!(error instanceof KubeError && error.kind === "conflict")) throw error;
  }
  return client.getSecret(op, secret.name);
}
