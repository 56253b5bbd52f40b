/**
 * POST /api/internal/relay (issue 40): another web replica hands this one a call for a machine
 * whose agent channel this one holds. Only replicas may call it: they present a key derived from
 * BERTH_SECRET, which no browser, token or agent has. The call runs only on the connection it
 * names (AgentChannels.serveRelay); its answer is the agent's, in the box protocol's shape.
 */
import { timingSafeEqual } from "node:crypto";
import { BoxError, httpStatusOf } from "@berth/box-protocol";
import { relayRequestSchema, type AgentChannels } from "@berth/sandbox";
import { z } from "zod";
import type { ApiLogger } from "../logger.ts";
import { agentError } from "./agentHttp.ts";

/** The path every replica serves the relay at. */
export const RELAY_PATH = "/api/internal/relay";

export function createRelayHandler(options: {
  readonly channels: AgentChannels;
  readonly relayKey: string;
  readonly logger: ApiLogger;
}): (request: Request) => Promise<Response> {
  const expected = Buffer.from(`Bearer ${options.relayKey}`);
  return async (request) => {
    const presented = Buffer.from(request.headers.get("authorization") ?? "");
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected))
      return agentError(401, "unauthorized", "relays are for Berth's own replicas");
    let json: unknown;
    try {
      json = await request.json();
    } catch {
      return agentError(400, "invalid_request", "a relay is a JSON body");
    }
    const relayed = relayRequestSchema.safeParse(json);
    if (!relayed.success)
      return agentError(400, "invalid_request", `bad relay: ${z.prettifyError(relayed.error)}`);
    try {
      const result = await options.channels.serveRelay(relayed.data);
      return Response.json({ result }, { headers: { "cache-control": "no-store" } });
    } catch (error) {
      if (error instanceof BoxError)
        return agentError(httpStatusOf(error.code), error.code, error.message);
      options.logger.error({ err: error, machineId: relayed.data.machineId }, "a relay failed");
      return agentError(500, "internal", "Internal error; it was logged.");
    }
  };
}
