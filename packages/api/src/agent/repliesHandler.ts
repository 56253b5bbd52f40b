/**
 * POST /agent/v1/replies: an agent's answer to one request of its channel. The credential is
 * checked on every POST, so a revoked machine's answers stop counting at once.
 */
import { agentReplySchema } from "@berth/box-protocol";
import { z } from "zod";
import {
  agentError,
  machineOf,
  UNAUTHORIZED_MESSAGE,
  type AgentEndpointDeps,
} from "./agentHttp.ts";

export function createRepliesHandler(
  options: AgentEndpointDeps,
): (request: Request) => Promise<Response> {
  const { db, channels } = options;
  return async (request) => {
    const machine = await machineOf(db, request);
    if (machine === undefined) return agentError(401, "unauthorized", UNAUTHORIZED_MESSAGE);
    let json: unknown;
    try {
      json = await request.json();
    } catch {
      return agentError(400, "invalid_request", "a reply is a JSON body");
    }
    const reply = agentReplySchema.safeParse(json);
    if (!reply.success)
      return agentError(400, "invalid_request", `bad reply: ${z.prettifyError(reply.error)}`);
    // A reply nobody waits for any more (timed out, or not this machine's) is dropped: the
    // agent has nothing to do about it either way.
    await channels.reply(machine, reply.data);
    return new Response(null, { status: 204 });
  };
}
