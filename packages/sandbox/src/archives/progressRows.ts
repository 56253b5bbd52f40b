import type { DbClientOrTx } from "@berth/db";
import type { PendingBlobTag } from "./archiveStore.ts";

/**
 * What failing a dead transfer's progress did. `failed`: the row showed that transfer, and now
 * shows it failed. The rest change nothing: `already_failed` (a rival sweep, or its own process,
 * got there first), `superseded` (a later transfer of the lease overwrote the row), `no_row`
 * (the transfer recorded no progress, or its lease is gone).
 */
export type FailTransferOutcome = "failed" | "already_failed" | "superseded" | "no_row";

/**
 * Moves a transfer's progress to `failed`, where it stood, only while the lease's row is still
 * that transfer's: a CAS on (lease, transfer id, not yet failed), re-read on a loss to name it.
 */
export async function failTransfer(
  db: DbClientOrTx,
  transfer: PendingBlobTag,
): Promise<FailTransferOutcome> {
  const moved = await db.$executeRaw`
    UPDATE archive_progress SET phase = 'failed', updated_at = now()
     WHERE lease_id = ${transfer.leaseId}::uuid AND transfer_id = ${transfer.transferId}::uuid
       AND phase <> 'failed'`;
  if (moved === 1) return "failed";
  const [row] = await db.$queryRaw<{ transfer_id: string; phase: string }[]>`
    SELECT transfer_id::text, phase FROM archive_progress WHERE lease_id = ${transfer.leaseId}::uuid`;
  if (row === undefined) return "no_row";
  return row.transfer_id === transfer.transferId ? "already_failed" : "superseded";
}
