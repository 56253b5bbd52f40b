import type { DbClientOrTx, LeaseLiveness } from "@berth/db";
import { isArchiveComplete } from "../lease/snapshot.ts";
import type { MachineView } from "./machineView.ts";

interface MachineRow {
  readonly session_id: string;
  readonly title: string;
  readonly sandbox_group_id: string;
  readonly active_sandbox_id: string | null;
  readonly liveness: LeaseLiveness | null;
  readonly epoch: number | null;
  readonly instance_id: string | null;
  readonly workspace_generation: number | null;
  readonly archive_generation: number | null;
  readonly archive_status: string | null;
  readonly turn: number;
  readonly viewer: number;
  readonly direct: number;
  readonly process: number;
  readonly last_seen_at: Date | null;
}

/**
 * The machines of one session, or of every session of the workspace, in one round trip
 * whatever their number: sessions, their group leases and holder counts joined in one query,
 * newest session first. Today each session has its group box; enrolled machines join it here.
 */
export async function readMachines(
  db: DbClientOrTx,
  scope: { workspaceId: string; sessionId?: string },
): Promise<MachineView[]> {
  const rows = await db.$queryRaw<MachineRow[]>`
    SELECT s.id::text AS session_id, s.title, s.sandbox_group_id::text AS sandbox_group_id,
           s.active_sandbox_id::text AS active_sandbox_id,
           l.liveness, l.epoch, l.instance_id, l.workspace_generation, l.archive_generation,
           l.archive_status,
           coalesce(h.turn, 0)::int AS turn, coalesce(h.viewer, 0)::int AS viewer,
           coalesce(h.direct, 0)::int AS direct, coalesce(h.process, 0)::int AS process,
           h.last_seen_at
      FROM sessions s
      LEFT JOIN sandbox_leases l
        ON l.workspace_id = s.workspace_id AND l.sandbox_group_id = s.sandbox_group_id
      LEFT JOIN LATERAL (
        SELECT count(*) FILTER (WHERE kind = 'turn') AS turn,
               count(*) FILTER (WHERE kind = 'viewer') AS viewer,
               count(*) FILTER (WHERE kind = 'direct') AS direct,
               count(*) FILTER (WHERE kind = 'process') AS process,
               max(last_heartbeat_at) AS last_seen_at
          FROM lease_holders WHERE lease_id = l.id) h ON true
     WHERE s.workspace_id = ${scope.workspaceId}::uuid
       AND (${scope.sessionId ?? null}::uuid IS NULL OR s.id = ${scope.sessionId ?? null}::uuid)
     ORDER BY s.created_at DESC, s.id`;
  return rows.map(groupBoxOf);
}

function groupBoxOf(row: MachineRow): MachineView {
  const workspaceGeneration = row.workspace_generation ?? 0;
  return {
    sandboxId: row.sandbox_group_id,
    sessionId: row.session_id,
    name: row.title === "" ? "group box" : `${row.title} (group box)`,
    kind: "group",
    state: row.liveness ?? "cold",
    active: row.active_sandbox_id === null,
    isSessionGroup: true,
    instanceId: row.instance_id,
    workspaceGeneration,
    archiveGeneration: row.archive_generation,
    archiveComplete:
      row.archive_status !== null &&
      isArchiveComplete({
        archiveStatus: row.archive_status,
        archiveGeneration: row.archive_generation,
        workspaceGeneration,
      }),
    leaseEpoch: row.epoch,
    holders: { turn: row.turn, viewer: row.viewer, direct: row.direct, process: row.process },
    os: null,
    arch: null,
    hasDisplay: false,
    lastSeenAt: row.last_seen_at,
  };
}
