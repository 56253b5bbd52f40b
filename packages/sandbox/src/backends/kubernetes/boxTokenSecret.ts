/**
 * The box's token, kept in a Secret its Sandbox owns (issue 35): HMAC-SHA256 of Berth's secret
 * over the allocation id, so Berth derives it again whenever it dials and never stores it. The
 * Secret is made after the Sandbox (its owner reference needs the Sandbox's uid) and goes with
 * it by garbage collection; boxd reads it from a mounted file. The pod uid, which anyone who can
 * list pods reads, is never the token.
 */
import { createHmac } from "node:crypto";
import { V1OwnerReference } from "@kubernetes/client-node";
import type { KubeClient } from "./kubeClient.ts";
import { SANDBOX, apiVersionOf, type KubeObject } from "./kubeObjects.ts";
import { createOpaqueSecret } from "./opaqueSecret.ts";
import type { Operation } from "./operation.ts";

/** The key of the token in the Secret, and so the file's name in its volume. */
export const TOKEN_KEY = "token";

/** `<sandbox>-token`: a DNS subdomain, since Sandbox names are 31 characters. */
export function tokenSecretName(sandboxName: string): string {
  return `${sandboxName}-token`;
}

/** The box's token: HMAC-SHA256(Berth's secret, allocation id), hex. */
export function boxToken(secret: string, allocationId: string): string {
  return createHmac("sha256", secret).update(allocationId, "utf8").digest("hex");
}

/** A Secret under the token's name that the Sandbox does not own: never used, never touched. */
export class ForeignTokenSecretError extends Error {
  override readonly name = "ForeignTokenSecretError";
  constructor(
    readonly secretName: string,
    readonly sandboxName: string,
  ) {
    super(
      `Secret ${secretName} is not Sandbox ${sandboxName}'s (another controls it): the box's token is not put there`,
    );
  }
}

/**
 * Makes the Sandbox's token Secret, or finds it made (a retried create, an adopting spawner):
 * one POST; on 409 one GET, accepted only when the Sandbox controls it and it holds this token.
 */
export async function ensureTokenSecret(
  client: KubeClient,
  op: Operation,
  input: { readonly sandbox: KubeObject; readonly installationId: string; readonly token: string },
): Promise<void> {
  const { sandbox } = input;
  const name = tokenSecretName(sandbox.metadata.name);
  const uid = sandbox.metadata.uid;
  if (uid === undefined)
    throw new Error(`Sandbox ${sandbox.metadata.name} has no uid to own its Secret`);
  const encoded = Buffer.from(input.token, "utf8").toString("base64");
  const owner = new V1OwnerReference();
  owner.apiVersion = apiVersionOf(SANDBOX);
  owner.kind = SANDBOX.kind;
  owner.name = sandbox.metadata.name;
  owner.uid = uid;
  owner.controller = true;
  owner.blockOwnerDeletion = true;
  const standing = await createOpaqueSecret(client, op, {
    name,
    installationId: input.installationId,
    owner,
    key: TOKEN_KEY,
    encoded,
  });
  if (standing === "made") return;
  if (standing.controllerUid !== uid || standing.data[TOKEN_KEY] !== encoded)
    throw new ForeignTokenSecretError(name, sandbox.metadata.name);
}
