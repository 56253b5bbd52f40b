import type { DbClientOrTx } from "@berth/db";
import { connectedRecently } from "./heartbeat.ts";

/** Where an enrolled machine stands: heard from lately, not lately, or shut out by an admin. */
export type EnrolledMachineState = "online" | "offline" | "revoked";

/** One enrolled machine of a workspace, as `machines.listWorkspace` and `berth machines` show it. */
export interface EnrolledMachineView {
  readonly id: string;
  readonly name: string;
  readonly os: string;
  readonly arch: string;
  readonly hasDisplay: boolean;
  readonly boxdVersion: string;
  readonly state: EnrolledMachineState;
  readonly lastSeenAt: Date | null;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

/**
 * Every machine enrolled in the workspace, revoked ones included (so an admin sees what was shut
 * out and when), by name. `now` (the Clock's) decides which are online.
 */
export async function readEnrolledMachines(
  db: DbClientOrTx,
  scope: { workspaceId: string },
  now: Date,
): Promise<EnrolledMachineView[]> {
  const rows = await db.machine.findMany({
    where: { workspaceId: scope.workspaceId },
    select: {
      id: true,
      name: true,
      os: true,
      arch: true,
      hasDisplay: true,
      boxdVersion: true,
      lastSeenAt: true,
      createdAt: true,
      revokedAt: true,
      connection: { select: { lastHeartbeatAt: true } },
    },
    orderBy: { name: "asc" },
  });
  return rows.map(({ connection, ...row }) => ({
    ...row,
    state: enrolledMachineState({ ...row, answeredAt: connection?.lastHeartbeatAt ?? null }, now),
  }));
}

/**
 * Revoked whatever its connection; else online while connected and its agent answered a ping
 * within the window (heartbeat.ts): a channel that ended, or a holder that died, reads offline.
 */
export function enrolledMachineState(
  machine: { readonly answeredAt: Date | null; readonly revokedAt: Date | null },
  now: Date,
): EnrolledMachineState {
  if (machine.revokedAt !== null) return "revoked";
  return connectedRecently(machine.answeredAt, now) ? "online" : "offline";
}
