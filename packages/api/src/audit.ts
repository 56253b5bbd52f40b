import type { AuditActorKind, DbClientOrTx, Prisma } from "@berth/db";

/** One row of the one audit log (the lease's AuditEvent table); written in the change's transaction. */
export async function writeAudit(
  db: DbClientOrTx,
  event: {
    workspaceId: string;
    /** A procedure's caller (AuditActor), or a machine's agent acting with its credential. */
    actor: { readonly kind: AuditActorKind; readonly id: string };
    action: string;
    target: { kind: string; id: string };
    before?: Prisma.InputJsonValue;
    after?: Prisma.InputJsonValue;
    at: Date;
  },
): Promise<void> {
  await db.auditEvent.create({
    data: {
      workspaceId: event.workspaceId,
      actorKind: event.actor.kind,
      actorId: event.actor.id,
      action: event.action,
      targetKind: event.target.kind,
      targetId: event.target.id,
      ...(event.before === undefined ? {} : { before: event.before }),
      ...(event.after === undefined ? {} : { after: event.after }),
      at: event.at,
    },
  });
}
