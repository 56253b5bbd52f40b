/**
 * GET /agent/v1/channel: the agent's long-lived channel (issue 39). Server-Sent Events down —
 * `event: request` for an operation to run, `event: ping` as a heartbeat; the replies go up as
 * POSTs (repliesHandler.ts). The stream ends when the agent goes (the request's signal), when
 * a newer connection of the machine replaces it, or when the machine is revoked.
 */
import { AGENT_HELLO_HEADER, agentFactsSchema, type AgentFacts } from "@berth/box-protocol";
import type { AgentConnection } from "@berth/sandbox";
import {
  agentError,
  machineOf,
  UNAUTHORIZED_MESSAGE,
  type AgentEndpointDeps,
} from "./agentHttp.ts";

export function createChannelHandler(
  options: AgentEndpointDeps,
): (request: Request) => Promise<Response> {
  const { db, channels } = options;
  return async (request) => {
    const machine = await machineOf(db, request);
    if (machine === undefined) return agentError(401, "unauthorized", UNAUTHORIZED_MESSAGE);
    const facts = factsOf(request.headers.get(AGENT_HELLO_HEADER));
    if (facts === undefined)
      return agentError(
        400,
        "invalid_request",
        `the ${AGENT_HELLO_HEADER} header must be base64url JSON of the agent's facts (os, arch, hasDisplay, boxdVersion)`,
      );
    const encoder = new TextEncoder();
    // The stream exists before the channel opens (its sink writes to it): `held` is filled then.
    const held: { connection?: AgentConnection } = {};
    let closed = false;
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    const end = () => {
      if (closed) return;
      closed = true;
      try {
        controller?.close();
      } catch {
        // Already closed or errored by the reader going away.
      }
    };
    const body = new ReadableStream<Uint8Array>({
      start(streamController) {
        controller = streamController;
        // A comment first: the agent sees the channel is up before any request comes.
        streamController.enqueue(encoder.encode(": berth agent channel\n\n"));
      },
      cancel() {
        closed = true;
        void held.connection?.close();
      },
    });
    const connection = await channels.open(machine, facts, (event) => {
      if (closed || controller === undefined) throw new Error("the channel's stream is closed");
      // data is JSON, which never holds a raw newline: one `data:` line is the whole event.
      controller.enqueue(encoder.encode(`event: ${event.event}\ndata: ${event.data}\n\n`));
    });
    held.connection = connection;
    void connection.ended.then(end);
    const gone = () => {
      end();
      void connection.close();
    };
    if (request.signal.aborted) gone();
    else request.signal.addEventListener("abort", gone, { once: true });
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        // no-transform: a compressing layer (Next's own) would hold events back to fill its
        // blocks; proxies that buffer (nginx) are told so by x-accel-buffering.
        "cache-control": "no-store, no-transform",
        "x-accel-buffering": "no",
      },
    });
  };
}

/** The hello header's facts, or undefined when it is missing or malformed. */
function factsOf(header: string | null): AgentFacts | undefined {
  if (header === null) return undefined;
  try {
    const parsed = agentFactsSchema.safeParse(
      JSON.parse(Buffer.from(header, "base64url").toString("utf8")),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
