import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { incomingMessageToRequest } from "@trpc/server/adapters/node-http";
import { AGENT_ENDPOINTS } from "../agent/agentEndpoints.ts";
import { RELAY_PATH } from "../agent/relayHandler.ts";
import type { BerthApi } from "../api.ts";
import { stampClientAddress } from "./clientAddress.ts";
import { pullStream } from "./pullStream.ts";

export interface ServedApi {
  /** The server's origin, e.g. http://127.0.0.1:41234: the API is at /api/trpc. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves a BerthApi over plain node:http exactly as the dashboard's routes do (tRPC's fetch
 * adapter at /api/trpc, file transfers at /api/files, sign-in at /api/auth, the agents at /agent:
 * enrollment, channel, replies and the agent bundle): for typed-client tests, benchmarks, and a
 * headless API. Closing it closes the server and its open streams, not the API.
 */
export async function serveApi(
  api: BerthApi,
  options: { host?: string; port?: number } = {},
): Promise<ServedApi> {
  const server = createServer((req, res) => {
    respond(api, req, res).catch(() => res.destroy());
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${String(port)}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function respond(api: BerthApi, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Sign-in throttling keys on the client's address: the socket's, or behind a trusted proxy
  // the one it forwarded; never one a client claims.
  stampClientAddress(req, api.trustedProxies);
  const path = new URL(req.url ?? "/", "http://berth.invalid").pathname;
  // File bodies are large: converted apart, so they are read only as fast as the box takes them.
  if (path.startsWith("/api/files/")) {
    await send(res, await api.handleFiles(streamingRequest(req, res)));
    return;
  }
  // Its signal aborts when the client goes away: that is what ends a subscription.
  const request = incomingMessageToRequest(req, res, { maxBodySize: null });
  const response = path.startsWith("/api/auth/")
    ? await api.handleAuth(request)
    : path.startsWith("/api/trpc/")
      ? await api.handleTrpc(request)
      : path.startsWith("/agent/")
        ? await agentRoute(api, request, path)
        : path === RELAY_PATH && request.method === "POST"
          ? await api.handleRelay(request)
          : new Response(
              "Not found: the API is at /api/trpc, file transfers at /api/files, sign-in at /api/auth.",
              { status: 404 },
            );
  await send(res, response);
}

function agentRoute(api: BerthApi, request: Request, path: string): Promise<Response> {
  const endpoint = AGENT_ENDPOINTS.find(
    (candidate) => candidate.path === path && candidate.method === request.method,
  );
  if (endpoint === undefined) return Promise.resolve(new Response("Not found", { status: 404 }));
  return api[endpoint.handler](request);
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (response.body === null) {
    res.end();
    return;
  }
  // An answer is sent in one write; only a stream (server-sent events, a file) is relayed as it
  // comes, waiting for the socket to drain so a slow reader never makes a file pile up here.
  const type = response.headers.get("content-type") ?? "";
  const streamed = ["text/event-stream", "application/octet-stream", "text/javascript"];
  if (!streamed.some((kind) => type.startsWith(kind))) {
    res.end(Buffer.from(await response.arrayBuffer()));
    return;
  }
  res.flushHeaders();
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (res.destroyed) {
      await reader.cancel();
      return;
    }
    if (!res.write(value)) await drained(res);
  }
  res.end();
}

/** Resolves when the socket takes more (or is gone: the next read sees `destroyed`). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}

/**
 * A file route's request, its body pulled chunk by chunk as the box takes it (tRPC's
 * conversion pushes every chunk as it arrives, so an upload faster than the box writes would
 * pile up in memory). Its signal aborts when the client goes away.
 */
function streamingRequest(req: IncomingMessage, res: ServerResponse): Request {
  const gone = new AbortController();
  res.once("close", () => {
    gone.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const one of Array.isArray(value) ? value : [value ?? ""]) headers.append(name, one);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`), {
    method: req.method ?? "GET",
    headers,
    signal: gone.signal,
    ...(hasBody ? { body: pullStream(req), duplex: "half" as const } : {}),
  });
}
