/**
 * Where a machine's agent channel is held (issue 40): the replica, its address and the
 * connection's epoch, as machine_connections records them, or why the machine cannot be reached.
 */
import type { DbClientOrTx } from "@berth/db";
import { connectedRecently } from "./heartbeat.ts";

export interface MachineRoute {
  readonly replicaId: string;
  /** Where other replicas relay to it (BERTH_REPLICA_URL); null when it announces none. */
  readonly replicaUrl: string | null;
  readonly connectionEpoch: number;
}

export type RouteLookup =
  | { readonly kind: "not_found" }
  | {
      readonly kind: "offline";
      readonly why: "revoked" | "not_connected" | "silent";
      readonly lastSeenAt: Date | null;
    }
  | { readonly kind: "connected"; readonly route: MachineRoute };

/** The machine's route in the caller's workspace, read now. */
export async function readMachineRoute(
  db: DbClientOrTx,
  target: { readonly machineId: string; readonly workspaceId: string },
  now: Date,
): Promise<RouteLookup> {
  const machine = await db.machine.findFirst({
    where: { id: target.machineId, workspaceId: target.workspaceId },
    select: {
      revokedAt: true,
      lastSeenAt: true,
      connection: {
        select: { replicaId: true, replicaUrl: true, connectionEpoch: true, lastHeartbeatAt: true },
      },
    },
  });
  if (machine === null) return { kind: "not_found" };
  const { connection, lastSeenAt } = machine;
  if (machine.revokedAt !== null) return { kind: "offline", why: "revoked", lastSeenAt };
  if (connection === null) return { kind: "offline", why: "not_connected", lastSeenAt };
  // A row whose holder stopped refreshing it: that replica died with the channel.
  if (!connectedRecently(connection.lastHeartbeatAt, now))
    return { kind: "offline", why: "silent", lastSeenAt };
  const { replicaId, replicaUrl, connectionEpoch } = connection;
  return { kind: "connected", route: { replicaId, replicaUrl, connectionEpoch } };
}
