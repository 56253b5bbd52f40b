/** What a machine call comes to when it cannot run, or what came back (agentChannels.ts). */
import {
  BoxError,
  boxOperations,
  type BoxOperationName,
  type OperationResponse,
} from "@berth/box-protocol";
import { z } from "zod";
import type { AgentEvent, MachineTarget } from "./agentChannelTypes.ts";
import type { RouteLookup } from "./machineRoute.ts";

/** Asks the agent to exchange its credential (AGENT_ROUTES.rotate) and connect with the new one. */
export const ROTATE_EVENT: AgentEvent = { event: "rotate", data: "{}" };

/** The route to relay to, or the BoxError the lookup comes to. */
export function relayTarget(target: MachineTarget, lookup: RouteLookup, replicaId: string) {
  switch (lookup.kind) {
    case "not_found":
      throw notFound(target);
    case "offline":
      throw machineOffline(target, lookup.why, lookup.lastSeenAt);
    case "connected":
      // Its row names this replica, which holds no channel: it just ended here.
      if (lookup.route.replicaId === replicaId) throw machineOffline(target, "not_connected", null);
      return lookup.route;
    default:
      return assertNever(lookup);
  }
}

/** Validates what came back, from the agent or through a relay. */
export function checkedResult<K extends BoxOperationName>(
  target: { readonly machineId: string },
  op: K,
  result: unknown,
): OperationResponse<K> {
  const parsed = boxOperations[op].response.safeParse(result);
  if (!parsed.success)
    throw new BoxError(
      "internal",
      `machine ${target.machineId} answered ${op} with a malformed result: ${z.prettifyError(parsed.error)}`,
    );
  return parsed.data as OperationResponse<K>;
}

// Kept in one place so every "offline" answer tells the person what to do.
function machineOffline(
  target: MachineTarget,
  why: "revoked" | "not_connected" | "silent",
  lastSeenAt: Date | null,
): BoxError {
  const seen = lastSeenAt === null ? "never seen" : `last seen ${lastSeenAt.toISOString()}`;
  const words = {
    revoked: `machine ${target.machineId} is revoked: enroll it again to use it`,
    not_connected: `machine ${target.machineId} is offline (${seen}): start its agent there, \`node boxd.mjs agent --server URL --root DIR\``,
    silent: `machine ${target.machineId} is offline: its agent stopped answering (${seen}); check the machine and restart its agent`,
  } as const;
  return new BoxError("machine_offline", words[why]);
}

/** The same answer whether the machine is another workspace's or does not exist. */
export function notFound(target: MachineTarget): BoxError {
  return new BoxError("not_found", `no machine ${target.machineId} in this workspace`);
}

function assertNever(value: never): never {
  throw new Error(`unexpected route ${JSON.stringify(value)}`);
}
