import type { DbClientOrTx } from "@berth/db";
import { Prisma } from "@berth/db";
import type { ArchiveRecordStatus } from "@berth/db";

export interface ArchiveRow {
  readonly id: string;
  readonly revision: string;
  readonly generation: number;
  readonly sizeBytes: number;
  readonly fileCount: number;
  readonly storageKey: string;
  readonly sha256: string;
  readonly status: ArchiveRecordStatus;
  readonly createdAt: Date;
}

/** The archive row of one revision of a lease, or null. */
export async function findArchive(
  db: DbClientOrTx,
  where: { readonly leaseId: string; readonly revision: string },
): Promise<ArchiveRow | null> {
  const row = await db.workspaceArchive.findUnique({
    where: { leaseId_revision: { leaseId: where.leaseId, revision: where.revision } },
  });
  if (row === null) return null;
  return { ...row, sizeBytes: Number(row.sizeBytes), status: row.status as ArchiveRecordStatus };
}

/** Every archive of a lease, newest generation first. */
export async function listArchives(db: DbClientOrTx, leaseId: string): Promise<ArchiveRow[]> {
  const rows = await db.workspaceArchive.findMany({
    where: { leaseId },
    orderBy: [{ generation: "desc" }, { createdAt: "desc" }],
  });
  return rows.map((row) => ({
    ...row,
    sizeBytes: Number(row.sizeBytes),
    status: row.status as ArchiveRecordStatus,
  }));
}

/** Records what a restore learned of an archive's blob (a CAS on the row's key). */
export async function markArchive(
  db: DbClientOrTx,
  input: { readonly id: string; readonly storageKey: string; readonly status: ArchiveRecordStatus },
): Promise<void> {
  await db.workspaceArchive.updateMany({
    where: { id: input.id, storageKey: input.storageKey },
    data: { status: input.status },
  });
}

/** Applies retention; answers the storage keys of the rows it deleted (delete those blobs). */
export async function pruneArchives(
  db: DbClientOrTx,
  input: { readonly workspaceId: string; readonly leaseId: string; readonly keep: number },
): Promise<string[]> {
  const rows = await db.$queryRaw<{ storage_key: string }[]>(
    Prisma.sql`SELECT storage_key FROM berth_archive_prune(${input.workspaceId}::uuid,
      ${input.leaseId}::uuid, ${input.keep}::int)`,
  );
  return rows.map((row) => row.storage_key);
}
