/**
 * A machine's credential (issue 39): 256 random bits the agent presents as a bearer token on
 * every request of its channel. Berth verifies it, so it keeps only its SHA-256 (the value is
 * random and long, so a fast hash is enough: nothing to guess from it); the agent keeps the value
 * in a file only its user can read. A machine is accepted while its credential is unrevoked and
 * the machine itself is not revoked.
 */
import { createHash, randomBytes } from "node:crypto";
import type { DbClientOrTx } from "@berth/db";

/** The prefix that makes a leaked credential recognizable (in logs, in secret scanners). */
export const MACHINE_CREDENTIAL_PREFIX = "berth_machine_";

export function newMachineCredential(): string {
  return `${MACHINE_CREDENTIAL_PREFIX}${randomBytes(32).toString("base64url")}`;
}

export function machineCredentialHash(credential: string): string {
  return createHash("sha256").update(credential, "utf8").digest("hex");
}

/** The machine a credential admits, or undefined (unknown, revoked, or its machine revoked). */
export interface AuthenticatedMachine {
  readonly machineId: string;
  readonly workspaceId: string;
}

export async function authenticateMachine(
  db: DbClientOrTx,
  credential: string,
): Promise<AuthenticatedMachine | undefined> {
  if (!credential.startsWith(MACHINE_CREDENTIAL_PREFIX)) return undefined;
  const found = await db.machineCredential.findUnique({
    where: { credentialHash: machineCredentialHash(credential) },
    select: {
      revokedAt: true,
      machine: { select: { id: true, workspaceId: true, revokedAt: true } },
    },
  });
  if (found === null || found.revokedAt !== null || found.machine.revokedAt !== null)
    return undefined;
  return { machineId: found.machine.id, workspaceId: found.machine.workspaceId };
}
