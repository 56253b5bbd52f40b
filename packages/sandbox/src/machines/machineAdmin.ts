/**
 * What an admin does to an enrolled machine: rename it, revoke it (rotating its credential is
 * credentialRotation.ts'). Each is scoped by workspace (another workspace's machine is
 * `not_found`, never a hint it exists) and returns a named outcome; the API writes the audit
 * row in the same transaction.
 */
import { Prisma, type DbClientOrTx } from "@berth/db";
import { inTransaction } from "./machineTransaction.ts";

export interface MachineRef {
  readonly workspaceId: string;
  readonly machineId: string;
}

export type RenameOutcome =
  | { readonly outcome: "renamed"; readonly before: string; readonly name: string }
  | { readonly outcome: "unchanged"; readonly name: string }
  | { readonly outcome: "name_taken" }
  /** Someone renamed it between the read and the update: nothing changed; read and retry. */
  | { readonly outcome: "lost_race" }
  | { readonly outcome: "not_found" };

/**
 * Gives a machine a new name, unique in its workspace. The update is conditional on the name
 * the machine had when read: a concurrent rename in between makes it count 0, and the machine
 * is re-read (never a blind overwrite of a name someone else just set). A revoked machine keeps
 * its name and can still be renamed (to free its name for another).
 */
export async function renameMachine(
  db: DbClientOrTx,
  options: MachineRef & { name: string },
): Promise<RenameOutcome> {
  return await inTransaction(db, async (tx) => {
    const current = await tx.machine.findFirst({
      where: { id: options.machineId, workspaceId: options.workspaceId },
      select: { name: true },
    });
    if (current === null) return { outcome: "not_found" };
    if (current.name === options.name) return { outcome: "unchanged", name: current.name };
    // The unique (workspace_id, name) index decides a clash, also with a concurrent enrollment
    // or rename. Its violation would abort the whole transaction (the caller's too), so the
    // update runs under a savepoint and a clash rolls back only to it.
    await tx.$executeRaw`SAVEPOINT machine_rename`;
    try {
      const { count } = await tx.machine.updateMany({
        where: { id: options.machineId, workspaceId: options.workspaceId, name: current.name },
        data: { name: options.name },
      });
      await tx.$executeRaw`RELEASE SAVEPOINT machine_rename`;
      // Renamed (or deleted) by someone else since the read: this rename lost.
      if (count === 0) return { outcome: "lost_race" };
    } catch (error) {
      if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002"))
        throw error;
      await tx.$executeRaw`ROLLBACK TO SAVEPOINT machine_rename`;
      return { outcome: "name_taken" };
    }
    return { outcome: "renamed", before: current.name, name: options.name };
  });
}

export type RevokeOutcome =
  | { readonly outcome: "revoked"; readonly revokedAt: Date; readonly credentials: number }
  | { readonly outcome: "already_revoked"; readonly revokedAt: Date }
  | { readonly outcome: "not_found" };

/**
 * Revokes a machine: from now on none of its credentials is accepted (authenticateMachine checks
 * the machine's revoked_at too), every credential is marked revoked, and its connection row goes
 * (a replica holding its channel sees the row gone). Idempotent: a second revoke changes nothing
 * and says when the first happened.
 */
export async function revokeMachine(
  db: DbClientOrTx,
  options: MachineRef & { now: Date },
): Promise<RevokeOutcome> {
  return await inTransaction(db, async (tx) => {
    const { count } = await tx.machine.updateMany({
      where: { id: options.machineId, workspaceId: options.workspaceId, revokedAt: null },
      data: { revokedAt: options.now },
    });
    if (count === 0) {
      const row = await tx.machine.findFirst({
        where: { id: options.machineId, workspaceId: options.workspaceId },
        select: { revokedAt: true },
      });
      return row?.revokedAt == null
        ? { outcome: "not_found" }
        : { outcome: "already_revoked", revokedAt: row.revokedAt };
    }
    const credentials = await tx.machineCredential.updateMany({
      where: { machineId: options.machineId, revokedAt: null },
      data: { revokedAt: options.now },
    });
    await tx.machineConnection.deleteMany({ where: { machineId: options.machineId } });
    return { outcome: "revoked", revokedAt: options.now, credentials: credentials.count };
  });
}
