/**
 * POST /agent/v1/rotate: the agent of a machine whose credential an admin asked to rotate
 * exchanges it for a new one (credentialRotation.ts). The presented credential stays accepted
 * until the new one opens a channel, so an answer lost on the way costs nothing but a retry.
 */
import type { RotateResponse } from "@berth/box-protocol";
import { issueRotatedCredential } from "@berth/sandbox";
import type { Clock } from "@berth/sandbox/clock";
import { writeAudit } from "../audit.ts";
import {
  agentError,
  machineOf,
  UNAUTHORIZED_MESSAGE,
  type AgentEndpointDeps,
} from "./agentHttp.ts";

export function createRotateHandler(
  options: Pick<AgentEndpointDeps, "db"> & { readonly clock: Clock },
): (request: Request) => Promise<Response> {
  const { db, clock } = options;
  return async (request) => {
    const machine = await machineOf(db, request);
    if (machine === undefined) return agentError(401, "unauthorized", UNAUTHORIZED_MESSAGE);
    const now = await clock.now();
    const issued = await db.$transaction(async (tx) => {
      const outcome = await issueRotatedCredential(tx, { ...machine, now });
      if (outcome.outcome === "issued")
        await writeAudit(tx, {
          workspaceId: machine.workspaceId,
          actor: { kind: "machine", id: machine.machineId },
          action: "machine.credential.rotate",
          target: { kind: "machine", id: machine.machineId },
          at: now,
        });
      return outcome;
    });
    // Revoked between the check above and the lock: refused as any revoked credential is.
    if (issued.outcome === "refused") return agentError(401, "unauthorized", UNAUTHORIZED_MESSAGE);
    const answer: RotateResponse = { credential: issued.credential };
    return Response.json(answer, { status: 201, headers: { "cache-control": "no-store" } });
  };
}
