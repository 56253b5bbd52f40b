/**
 * Relaying a machine call between replicas (issue 40): a replica without the machine's channel
 * sends the call to the replica holding it, naming the connection epoch it read. The holder
 * runs it only on that very connection; any other answers `stale_route` and nothing runs.
 */
import { AGENT_OPERATIONS } from "@berth/box-protocol";
import { z } from "zod";
import type { MachineRoute } from "./machineRoute.ts";

export const relayRequestSchema = z.strictObject({
  machineId: z.uuid(),
  workspaceId: z.uuid(),
  connectionEpoch: z.number().int().min(1),
  op: z.enum(AGENT_OPERATIONS),
  input: z.unknown(),
  timeoutMs: z.number().int().min(1).max(600_000),
});
export type RelayRequest = z.infer<typeof relayRequestSchema>;

/**
 * The port: sends `request` to the replica at `route.replicaUrl` and resolves with the
 * operation's result; rejects with a BoxError only (the holder's code, `stale_route`, or
 * `unavailable` when the replica cannot be reached). The API's adapter speaks HTTP.
 */
export type MachineRelay = (
  route: MachineRoute & { readonly replicaUrl: string },
  request: RelayRequest,
  signal?: AbortSignal,
) => Promise<unknown>;
