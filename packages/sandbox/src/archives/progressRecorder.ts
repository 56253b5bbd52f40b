import type { DbClientOrTx } from "@berth/db";
import type { ArchiveProgress, ProgressListener } from "./progress.ts";

/**
 * A progress listener that keeps each figure in archive_progress (one row per lease,
 * overwritten), whose trigger wakes events.session subscribers on every replica. Writes are
 * chained, so they land in the order reported, and never fail the transfer: progress is
 * advice, and a lost figure is overwritten by the next. `settled` waits for the writes so far.
 */
export function progressRecorder(db: DbClientOrTx): ProgressListener & {
  settled(): Promise<void>;
} {
  let chain = Promise.resolve();
  const record = async (progress: ArchiveProgress) => {
    const total = progress.bytesTotal === undefined ? null : BigInt(progress.bytesTotal);
    await db.$executeRaw`
      INSERT INTO archive_progress (lease_id, workspace_id, operation, phase, transfer_id, bytes_done, bytes_total, updated_at)
      SELECT l.id, l.workspace_id, ${progress.operation}, ${progress.phase}, ${progress.transferId}::uuid,
             ${BigInt(progress.bytesDone)}, ${total}, now()
        FROM sandbox_leases l WHERE l.id = ${progress.leaseId}::uuid
      ON CONFLICT (lease_id) DO UPDATE
        SET operation = EXCLUDED.operation, phase = EXCLUDED.phase, transfer_id = EXCLUDED.transfer_id,
            bytes_done = EXCLUDED.bytes_done, bytes_total = EXCLUDED.bytes_total,
            updated_at = EXCLUDED.updated_at`;
  };
  return Object.assign(
    (progress: ArchiveProgress) => {
      chain = chain.then(() => record(progress)).catch(() => undefined);
    },
    { settled: () => chain },
  );
}
