/**
 * Rotating a machine's credential (issue 39), in three steps so that no step lost on the way
 * (an answer that never arrived, an agent killed before it saved the new file) locks the
 * machine out:
 *
 * 1. An admin asks (requestCredentialRotation): the credentials the machine holds now are
 *    marked. Its agent is told down its channel, now if connected and at every connect after.
 * 2. The agent exchanges its credential for a new one (issueRotatedCredential). The one it
 *    presented stays accepted; a new one issued earlier and never used is revoked (it was lost).
 * 3. The first channel opened with the new credential retires every other (retireOtherCredentials,
 *    called as the channel opens): from then on only the saved one works.
 */
import type { DbClientOrTx } from "@berth/db";
import { machineCredentialHash, newMachineCredential } from "./machineCredential.ts";
import type { MachineRef } from "./machineAdmin.ts";
import { inTransaction } from "./machineTransaction.ts";

export type RotationRequestOutcome =
  | { readonly outcome: "requested"; readonly requestedAt: Date }
  /** Asked before and not done yet: nothing changed; the first request's time. */
  | { readonly outcome: "already_requested"; readonly requestedAt: Date }
  | { readonly outcome: "revoked" }
  | { readonly outcome: "not_found" };

/** Marks the machine's accepted credentials for replacement. */
export async function requestCredentialRotation(
  db: DbClientOrTx,
  options: MachineRef & { now: Date },
): Promise<RotationRequestOutcome> {
  return await inTransaction(db, async (tx) => {
    const machine = await lockMachine(tx, options);
    if (machine === undefined) return { outcome: "not_found" };
    if (machine.revoked) return { outcome: "revoked" };
    const pending = await tx.machineCredential.findFirst({
      where: { machineId: options.machineId, revokedAt: null, rotationRequestedAt: { not: null } },
      select: { rotationRequestedAt: true },
    });
    if (pending?.rotationRequestedAt != null)
      return { outcome: "already_requested", requestedAt: pending.rotationRequestedAt };
    await tx.machineCredential.updateMany({
      where: { machineId: options.machineId, revokedAt: null },
      data: { rotationRequestedAt: options.now },
    });
    return { outcome: "requested", requestedAt: options.now };
  });
}

export type IssueOutcome =
  | { readonly outcome: "issued"; readonly credential: string }
  /** The presented credential, or its machine, is revoked (or unknown): nothing issued. */
  | { readonly outcome: "refused" };

/**
 * A new credential for the machine presenting `credentialHash`. The presented one stays
 * accepted until the new one opens a channel; every other (a new one issued before and never
 * used) is revoked. The machine's row is locked, so a revoke and a rotation run one after the
 * other, and a revoke always wins over a rotation after it.
 */
export async function issueRotatedCredential(
  db: DbClientOrTx,
  options: MachineRef & { credentialHash: string; now: Date },
): Promise<IssueOutcome> {
  return await inTransaction(db, async (tx) => {
    const machine = await lockMachine(tx, options);
    if (machine === undefined || machine.revoked) return { outcome: "refused" };
    const presented = await tx.machineCredential.findFirst({
      where: { machineId: options.machineId, credentialHash: options.credentialHash },
      select: { id: true, revokedAt: true },
    });
    if (presented === null || presented.revokedAt !== null) return { outcome: "refused" };
    await tx.machineCredential.updateMany({
      where: { machineId: options.machineId, revokedAt: null, id: { not: presented.id } },
      data: { revokedAt: options.now },
    });
    const credential = newMachineCredential();
    await tx.machineCredential.create({
      data: {
        machineId: options.machineId,
        credentialHash: machineCredentialHash(credential),
        createdAt: options.now,
      },
    });
    return { outcome: "issued", credential };
  });
}

/**
 * Called as a channel opens with `credentialHash`: every other credential of the machine is
 * revoked (an old one replaced by this, or a new one this agent never saved). Answers whether
 * the presented one is marked for rotation, in which case the agent is to be told.
 */
export async function retireOtherCredentials(
  db: DbClientOrTx,
  options: { machineId: string; credentialHash: string; now: Date },
): Promise<{ readonly rotationRequested: boolean; readonly retired: number }> {
  return await inTransaction(db, async (tx) => {
    const { count } = await tx.machineCredential.updateMany({
      where: {
        machineId: options.machineId,
        revokedAt: null,
        credentialHash: { not: options.credentialHash },
      },
      data: { revokedAt: options.now },
    });
    const presented = await tx.machineCredential.findUnique({
      where: { credentialHash: options.credentialHash },
      select: { rotationRequestedAt: true },
    });
    return { rotationRequested: presented?.rotationRequestedAt != null, retired: count };
  });
}

/** Locks the machine's row (FOR UPDATE) in the caller's workspace; undefined when not there. */
async function lockMachine(
  tx: DbClientOrTx,
  ref: MachineRef,
): Promise<{ revoked: boolean } | undefined> {
  const [machine] = await tx.$queryRaw<{ revoked: boolean }[]>`
    SELECT revoked_at IS NOT NULL AS revoked FROM machines
     WHERE id = ${ref.machineId}::uuid AND workspace_id = ${ref.workspaceId}::uuid
       FOR UPDATE`;
  return machine;
}
