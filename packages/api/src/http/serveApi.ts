import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { incomingMessageToRequest } from "@trpc/server/adapters/node-http";
import type { BerthApi } from "../api.ts";

export interface ServedApi {
  /** The server's origin, e.g. http://127.0.0.1:41234: the API is at /api/trpc. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves a BerthApi over plain node:http exactly as the dashboard's routes do (tRPC's fetch
 * adapter at /api/trpc, sign-in at /api/auth): for typed-client tests, benchmarks, and a
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
  // Sign-in throttling keys on the client's address: the socket's, never one the client claims.
  req.headers["x-forwarded-for"] = req.socket.remoteAddress ?? "";
  // Its signal aborts when the client goes away: that is what ends a subscription.
  const request = incomingMessageToRequest(req, res, { maxBodySize: null });
  const path = new URL(request.url).pathname;
  const response = path.startsWith("/api/auth/")
    ? await api.handleAuth(request)
    : path.startsWith("/api/trpc/")
      ? await fetchRequestHandler({
          endpoint: "/api/trpc",
          router: api.router,
          req: request,
          createContext: ({ req: incoming }) => api.createContext({ headers: incoming.headers }),
        })
      : new Response("Not found: the API is at /api/trpc and sign-in at /api/auth.", {
          status: 404,
        });
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (response.body === null) {
    res.end();
    return;
  }
  // An answer is sent in one write; only a stream (server-sent events) is relayed as it comes.
  if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
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
    res.write(value);
  }
  res.end();
}
