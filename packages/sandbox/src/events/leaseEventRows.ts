import type { ArchiveProgressOperation, ArchiveProgressPhase, DbClientOrTx } from "@berth/db";

// Reads of lease_events by id cursor, shared by the timeline (one page) and the live feed (one
// read per wake-up). Every read names the workspace in the query itself.

/** One accepted lease change, as the timeline and live subscribers see it. */
export interface LeaseEventRecord {
  /** Ascending across the table, so it is the cursor: read `id > afterId`. */
  readonly id: bigint;
  readonly transition: string;
  readonly fromState: string | null;
  readonly toState: string;
  readonly epochBefore: number | null;
  readonly epochAfter: number;
  readonly actor: string;
  readonly reason: string | null;
  readonly at: Date;
}

/** The lease columns that move without a lease event (admitted writes, published archives). */
export interface LeaseGenerations {
  readonly workspaceGeneration: number;
  readonly archiveGeneration: number | null;
}

/** The capture or restore under way on the lease, or its last (archive_progress). */
export interface ArchiveTransfer {
  readonly operation: ArchiveProgressOperation;
  readonly phase: ArchiveProgressPhase;
  readonly bytesDone: number;
  /** Unknown until the box sends its estimate (capture) or the store its size (restore). */
  readonly bytesTotal: number | null;
  readonly at: Date;
}

/** A sandbox group's lease as one wake-up of a subscriber finds it. */
export interface LeaseFeedRead {
  readonly leaseId: string;
  readonly generations: LeaseGenerations;
  readonly transfer: ArchiveTransfer | null;
  /** Events after the cursor, oldest first, at most the read's limit. */
  readonly events: readonly LeaseEventRecord[];
  /** The newest event of the lease at all (null if it has none): where a live tail starts. */
  readonly lastEventId: bigint | null;
}

const eventColumns = {
  id: true,
  transition: true,
  fromState: true,
  toState: true,
  epochBefore: true,
  epochAfter: true,
  actor: true,
  reason: true,
  at: true,
} as const;

/** One page of a lease's events after `afterId` (all of them from the start when null). */
export function readLeaseEvents(
  db: DbClientOrTx,
  page: { workspaceId: string; leaseId: string; afterId: bigint | null; limit: number },
): Promise<LeaseEventRecord[]> {
  return db.leaseEvent.findMany({
    where: {
      workspaceId: page.workspaceId,
      leaseId: page.leaseId,
      ...(page.afterId === null ? {} : { id: { gt: page.afterId } }),
    },
    select: eventColumns,
    orderBy: { id: "asc" },
    take: page.limit,
  });
}

interface FeedRow {
  lease_id: string;
  workspace_generation: number;
  archive_generation: number | null;
  last_event_id: bigint | null;
  transfer_operation: ArchiveProgressOperation | null;
  transfer_phase: ArchiveProgressPhase | null;
  transfer_bytes_done: bigint | null;
  transfer_bytes_total: bigint | null;
  transfer_at: Date | null;
  id: bigint | null;
  transition: string | null;
  from_state: string | null;
  to_state: string | null;
  epoch_before: number | null;
  epoch_after: number | null;
  actor: string | null;
  reason: string | null;
  at: Date | null;
}

/**
 * The group's lease, its generations, its archive transfer and the events after `afterId`, in
 * one round trip (a polling subscriber pays this once per interval), or null while the group
 * has no lease.
 */
export async function readGroupFeed(
  db: DbClientOrTx,
  read: { workspaceId: string; sandboxGroupId: string; afterId: bigint; limit: number },
): Promise<LeaseFeedRead | null> {
  const rows = await db.$queryRaw<FeedRow[]>`
    SELECT l.id::text AS lease_id, l.workspace_generation, l.archive_generation,
           (SELECT max(m.id) FROM lease_events m WHERE m.lease_id = l.id) AS last_event_id,
           p.operation AS transfer_operation, p.phase AS transfer_phase,
           p.bytes_done AS transfer_bytes_done, p.bytes_total AS transfer_bytes_total,
           p.updated_at AS transfer_at,
           e.id, e.transition, e.from_state, e.to_state, e.epoch_before, e.epoch_after,
           e.actor, e.reason, e.at
      FROM sandbox_leases l
      LEFT JOIN archive_progress p ON p.lease_id = l.id
      LEFT JOIN LATERAL (
        SELECT * FROM lease_events v
         WHERE v.lease_id = l.id AND v.id > ${read.afterId}::bigint
         ORDER BY v.id LIMIT ${read.limit}::int) e ON true
     WHERE l.workspace_id = ${read.workspaceId}::uuid
       AND l.sandbox_group_id = ${read.sandboxGroupId}::uuid
     ORDER BY e.id`;
  const [first] = rows;
  if (first === undefined) return null;
  return {
    leaseId: first.lease_id,
    generations: {
      workspaceGeneration: first.workspace_generation,
      archiveGeneration: first.archive_generation,
    },
    transfer: transferOf(first),
    events: rows.flatMap(eventOf),
    lastEventId: first.last_event_id,
  };
}

function transferOf(row: FeedRow): ArchiveTransfer | null {
  const { transfer_operation: operation, transfer_phase: phase, transfer_at: at } = row;
  if (operation === null || phase === null || at === null || row.transfer_bytes_done === null)
    return null;
  return {
    operation,
    phase,
    bytesDone: Number(row.transfer_bytes_done),
    bytesTotal: row.transfer_bytes_total === null ? null : Number(row.transfer_bytes_total),
    at,
  };
}

/** The event half of a joined row; none when the lease had no event after the cursor. */
function eventOf(row: FeedRow): LeaseEventRecord[] {
  if (row.id === null || row.to_state === null || row.epoch_after === null) return [];
  if (row.transition === null || row.actor === null || row.at === null) return [];
  return [
    {
      id: row.id,
      transition: row.transition,
      fromState: row.from_state,
      toState: row.to_state,
      epochBefore: row.epoch_before,
      epochAfter: row.epoch_after,
      actor: row.actor,
      reason: row.reason,
      at: row.at,
    },
  ];
}
