import { preparedOnce, queryRows, type DbClientOrTx, type LeaseLiveness } from "@berth/db";
import type { RecordedConfinement } from "../lease/confinement.ts";
import { isArchiveComplete } from "../lease/snapshot.ts";
import type { BoxIsolation, BoxNetwork } from "../lease/states.ts";
import type { BackendKind } from "../spawner/backendRegistry.ts";
import { connectedRecently } from "./heartbeat.ts";
import type { MachineView } from "./machineView.ts";

interface MachineRow {
  readonly kind: "group" | "selfhosted";
  readonly session_id: string;
  readonly sandbox_id: string;
  readonly backend: BackendKind | null;
  readonly name: string;
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
  readonly os: string | null;
  readonly arch: string | null;
  readonly has_display: boolean;
  readonly box_isolation: BoxIsolation | null;
  readonly box_network: BoxNetwork | null;
  readonly box_max_processes: number | null;
  /** bigint columns read as float8: exact below 2^53 bytes, and a number through pg too. */
  readonly box_memory_bytes: number | null;
  readonly box_cpu_weight: number | null;
  readonly box_disk_bytes: number | null;
  /** Milliseconds since the epoch: read as a number, the same through pg and through Prisma. */
  readonly last_seen_ms: number | null;
  /** When its agent last answered a ping (its connection's heartbeat); null: not connected. */
  readonly answered_ms: number | null;
}

export interface MachinesScope {
  readonly workspaceId: string;
  /** One session: its group box, then the workspace's enrolled machines it can move onto. */
  readonly sessionId?: string;
}

const MACHINES = preparedOnce(`
    WITH scoped AS (
      SELECT s.id, s.title, s.sandbox_group_id, s.active_sandbox_id, s.created_at, s.backend
        FROM sessions s
       WHERE s.workspace_id = $1::uuid
         AND ($2::uuid IS NULL OR s.id = $2::uuid))
    SELECT kind, session_id, sandbox_id, backend, name, active_sandbox_id, liveness, epoch, instance_id,
           workspace_generation, archive_generation, archive_status, turn, viewer, direct,
           process, os, arch, has_display, box_isolation, box_network, box_max_processes,
           box_memory_bytes, box_cpu_weight, box_disk_bytes,
           (extract(epoch FROM last_seen_at) * 1000)::float8 AS last_seen_ms,
           (extract(epoch FROM answered_at) * 1000)::float8 AS answered_ms
      FROM (
      SELECT 'group' AS kind, 0 AS part, s.created_at, s.id::text AS session_id,
             s.sandbox_group_id::text AS sandbox_id, coalesce(l.backend, s.backend) AS backend,
             CASE WHEN s.title = '' THEN 'group box' ELSE s.title || ' (group box)' END AS name,
             s.active_sandbox_id::text AS active_sandbox_id,
             l.liveness, l.epoch, l.instance_id, l.workspace_generation, l.archive_generation,
             l.archive_status,
             coalesce(h.turn, 0)::int AS turn, coalesce(h.viewer, 0)::int AS viewer,
             coalesce(h.direct, 0)::int AS direct, coalesce(h.process, 0)::int AS process,
             NULL::text AS os, NULL::text AS arch, false AS has_display,
             l.box_isolation, l.box_network, l.box_max_processes,
             l.box_memory_bytes::float8 AS box_memory_bytes, l.box_cpu_weight,
             l.box_disk_bytes::float8 AS box_disk_bytes, h.last_seen_at,
             NULL::timestamptz AS answered_at
        FROM scoped s
        LEFT JOIN sandbox_leases l
          ON l.workspace_id = $1::uuid AND l.sandbox_group_id = s.sandbox_group_id
        LEFT JOIN LATERAL (
          SELECT count(*) FILTER (WHERE kind = 'turn') AS turn,
                 count(*) FILTER (WHERE kind = 'viewer') AS viewer,
                 count(*) FILTER (WHERE kind = 'direct') AS direct,
                 count(*) FILTER (WHERE kind = 'process') AS process,
                 max(last_heartbeat_at) AS last_seen_at
            FROM lease_holders WHERE lease_id = l.id) h ON true
      UNION ALL
      SELECT 'selfhosted', 1, m.created_at, s.id::text, m.id::text, NULL, m.name,
             s.active_sandbox_id::text,
             NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0,
             m.os, m.arch, m.has_display, NULL, NULL, NULL, NULL, NULL, NULL, m.last_seen_at,
             c.last_heartbeat_at
        FROM scoped s
        JOIN machines m ON m.workspace_id = $1::uuid
        LEFT JOIN machine_connections c ON c.machine_id = m.id
       WHERE $2::uuid IS NOT NULL AND m.revoked_at IS NULL) machine
     ORDER BY part, CASE WHEN part = 0 THEN created_at END DESC, name, session_id`);

/**
 * The machines of one session, or the group box of every session of the workspace, in one round
 * trip whatever their number: sessions, their group leases and holder counts (and, for one
 * session, the workspace's enrolled machines that are not revoked: a session cannot move onto a
 * revoked one) in one statement; newest session first, enrolled
 * machines by name. `now` decides which enrolled machines are online. Read through queryRows:
 * Prisma's raw path re-typed every field of every row, a few milliseconds for an overview of
 * 1,000 sessions.
 */
export async function readMachines(
  db: DbClientOrTx,
  scope: MachinesScope,
  now: Date,
): Promise<MachineView[]> {
  const rows = await queryRows<MachineRow>(db, MACHINES, [
    scope.workspaceId,
    scope.sessionId ?? null,
  ]);
  return rows.map((row) => machineOf(row, now));
}

/**
 * One literal per row. A spread of the shared fields followed by the rest would read better,
 * but Node 20's V8 defines every property after a spread on a slow path: about 15 µs a row,
 * 12–18 ms for the overview's thousand sessions, where this takes well under one.
 *
 * An enrolled machine's files are its owner's: Berth never archives them, and writes routed to
 * it never advance the group lease's generations, so it has no generations of its own to show.
 */
function machineOf(row: MachineRow, now: Date): MachineView {
  const group = row.kind === "group";
  const workspaceGeneration = group ? (row.workspace_generation ?? 0) : 0;
  return {
    sandboxId: row.sandbox_id,
    sessionId: row.session_id,
    backend: group ? row.backend : null,
    name: row.name,
    kind: row.kind,
    state: group ? (row.liveness ?? "cold") : enrolledState(row, now),
    active: group ? row.active_sandbox_id === null : row.active_sandbox_id === row.sandbox_id,
    isSessionGroup: group,
    instanceId: group ? row.instance_id : null,
    workspaceGeneration,
    archiveGeneration: group ? row.archive_generation : null,
    archiveComplete:
      group &&
      row.archive_status !== null &&
      isArchiveComplete({
        archiveStatus: row.archive_status,
        archiveGeneration: row.archive_generation,
        workspaceGeneration,
      }),
    leaseEpoch: group ? row.epoch : null,
    holders: { turn: row.turn, viewer: row.viewer, direct: row.direct, process: row.process },
    os: row.os,
    arch: row.arch,
    hasDisplay: row.has_display,
    confinement: group ? confinementOf(row) : null,
    lastSeenAt: row.last_seen_ms === null ? null : new Date(row.last_seen_ms),
  };
}

/** What the group box was given, as its lease recorded it; null with no box, or unknown. */
function confinementOf(row: MachineRow): RecordedConfinement | null {
  if (row.box_isolation === null || row.box_network === null) return null;
  return {
    isolation: row.box_isolation,
    network: row.box_network,
    limits: {
      processes: row.box_max_processes,
      memoryBytes: row.box_memory_bytes,
      cpuWeight: row.box_cpu_weight,
      diskBytes: row.box_disk_bytes,
    },
  };
}

/** Online while connected and its agent answered within the window (heartbeat.ts). */
function enrolledState(row: MachineRow, now: Date): "online" | "offline" {
  return connectedRecently(row.answered_ms, now) ? "online" : "offline";
}
