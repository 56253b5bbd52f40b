/**
 * The machine side of a session's routing (issue 41): a call on the enrolled machine the
 * session's pointer names, through its agent channel, and the `fenced` answer of a call that met
 * the pointer moving under it (which a read follows again, and a write never does).
 */
import { ROUTE_MOVED, type Route, type RouteStep } from "../routing/routeStep.ts";
import type { BoxCall, BoxHandle } from "./boxHandle.ts";
import { BoxServiceError } from "./boxServiceError.ts";
import { machineBox, type MachineClients } from "./machineBox.ts";

/** A call on the machine the session points at: no group holder, the group box left asleep. */
export async function runOnMachine<T>(
  deps: { readonly route: RouteStep; readonly machines: MachineClients | undefined },
  at: { readonly call: BoxCall; readonly pointer: Route; readonly machineId: string },
  body: (handle: BoxHandle) => Promise<T>,
): Promise<T> {
  const { call, pointer, machineId } = at;
  if (deps.machines === undefined)
    throw new BoxServiceError({
      code: "route_unavailable",
      message: `This session points at machine ${machineId}, which this server cannot reach; an admin can swap it back to its group box.`,
      retryable: false,
    });
  const client = deps.machines({ workspaceId: call.workspaceId, machineId });
  const result = await body({
    box: machineBox(client, machineId),
    lease: null,
    generation: null,
    routedTo: { kind: "machine", id: machineId },
    routeEpoch: pointer.activeEpoch,
  });
  // A read answered by a target the pointer left meanwhile is stale: read it again there.
  if (!call.operation.writes && call.stream !== true) {
    const now = await deps.route.read(call.workspaceId, call.sessionId);
    if (now.activeEpoch !== pointer.activeEpoch) throw routeMoved(machineId);
  }
  return result;
}

/** How many times a read follows a pointer that moved under it. */
export const READ_ROUTE_ATTEMPTS = 3;

function routeMoved(from: string): BoxServiceError {
  return new BoxServiceError({
    code: "fenced",
    message: `The session's pointer moved while the call ran on ${from}; retry.`,
    retryable: true,
    detail: { reason: ROUTE_MOVED },
  });
}

export function isRouteMoved(error: unknown): boolean {
  return error instanceof BoxServiceError && error.detail.reason === ROUTE_MOVED;
}
