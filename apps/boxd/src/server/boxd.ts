import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { BoxError, boxOperations, streamRoutes, type BoxOperationName } from "@berth/box-protocol";
import type { z } from "zod";
import type { Logger } from "pino";
import type { CommandUser } from "../commandUser.ts";
import { childBaseEnv } from "../env.ts";
import { DiskWatch, duMeasure } from "../fs/diskWatch.ts";
import { sweepStaleTemp } from "../fs/sweepTemp.ts";
import { WorkspaceRoot } from "../fs/workspaceRoot.ts";
import { SHUTDOWN_GRACE_MS } from "../limits.ts";
import { nodePtySpawner } from "../terminals/nodePty.ts";
import { TerminalRegistry } from "../terminals/terminalRegistry.ts";
import { warmManifestThreads } from "../workspace/manifestBuilder.ts";
import { createAttachServer } from "./attach.ts";
import { admit } from "./auth.ts";
import { handleBind } from "./bind.ts";
import type { BoxdContext } from "./context.ts";
import { createHandlers, type Handlers } from "./handlers.ts";
import type { BoxdIdentity } from "./identity.ts";
import { listenOn, type BoundAddress, type ListenTarget } from "./listenOn.ts";
import { readJsonBody } from "./requestBody.ts";
import { sendError, sendJson } from "./respond.ts";
import { handleCapture, handleDownload, handleHydrate, handleUpload } from "./streamHandlers.ts";

export interface StartBoxdOptions {
  readonly root: string;
  /** The instance and token served, or a warm-pool boxd's pool until its bind (bind.ts). */
  readonly identity: BoxdIdentity;
  /** The pod boxd runs in (BOXD_POD_UID): requests must name it (auth.ts). */
  readonly podUid?: string | undefined;
  /** What the workspace may hold on disk before writes are refused (fs/diskWatch.ts). */
  readonly diskBytes?: number | undefined;
  /** A TCP port of 0 picks a free one; the bound address is in the result. */
  readonly listen: ListenTarget;
  /** The box's own user: every command runs as it, and owns what boxd makes. */
  readonly user?: CommandUser;
  readonly logger: Logger;
}

export interface RunningBoxd {
  readonly address: BoundAddress;
  /** Stops accepting, closes terminals and connections; resolves once the server is closed. */
  stop(): Promise<void>;
}

const jsonRoutes = new Map(
  (Object.keys(boxOperations) as BoxOperationName[]).map((name) => [
    boxOperations[name].path,
    name,
  ]),
);

export async function startBoxd(options: StartBoxdOptions): Promise<RunningBoxd> {
  const root = await WorkspaceRoot.open(options.root, options.user);
  const logger = options.logger;
  const disk = new DiskWatch({
    limitBytes: options.diskBytes,
    measure: duMeasure(root.realPath),
    logger,
  });
  const context: BoxdContext = {
    root,
    disk,
    terminals: new TerminalRegistry(nodePtySpawner),
    git: { root: root.realPath, baseEnv: childBaseEnv(), user: options.user },
    baseEnv: childBaseEnv(),
    user: options.user,
    identity: options.identity,
    podUid: options.podUid,
    logger,
  };
  const handlers = createHandlers(context);
  const attach = createAttachServer(context);
  let ready = false;

  const server = createServer((request, response) => {
    void route({ context, handlers, ready: () => ready }, request, response).catch(
      (error: unknown) => {
        // A refused upload may be unread: drain it so the client reads our error reply
        // instead of a reset connection.
        request.resume();
        sendError(response, error, logger);
      },
    );
  });
  server.on("upgrade", attach.handleUpgrade);
  const address = await listenOn(server, options.listen);
  ready = true;
  disk.start();
  void sweepStaleTemp(root, logger);
  // Started now, while boxd waits for its first request: a restore's hydrate and verification
  // then find their thread running instead of waiting tens of milliseconds for it.
  warmManifestThreads();

  return {
    address,
    stop: async () => {
      ready = false;
      disk.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      context.terminals.closeAll();
      attach.closeAll();
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await closed;
      clearTimeout(timer);
      await root.close();
    },
  };
}

interface Routing {
  readonly context: BoxdContext;
  readonly handlers: Handlers;
  readonly ready: () => boolean;
}

async function route(
  routing: Routing,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { context } = routing;
  const url = new URL(request.url ?? "/", "http://boxd");
  const method = request.method ?? "GET";
  // Health and readiness answer without the token: they reveal nothing but liveness (and the
  // instance served, "" while a warm-pool boxd is unbound).
  if (url.pathname === streamRoutes.health) {
    sendJson(response, 200, { ok: true, instanceId: context.identity.instanceId });
    return;
  }
  if (url.pathname === streamRoutes.ready) {
    const ready = routing.ready();
    sendJson(response, ready ? 200 : 503, { ready, instanceId: context.identity.instanceId });
    return;
  }
  // The bind has its own credential (a proof over the pod uid), not the token it brings.
  if (url.pathname === streamRoutes.bind) {
    await handleBind(context, request, response);
    return;
  }
  admit(request, context);
  const started = performance.now();
  const name = jsonRoutes.get(url.pathname);
  if (name !== undefined) {
    if (method !== "POST") throw new BoxError("invalid_request", `${url.pathname} takes POST`);
    await callHandler(routing.handlers, name, { body: await readJsonBody(request), response });
  } else {
    await routeStream({ context, request, response, url, method });
  }
  context.logger.debug(
    { method, path: url.pathname, ms: Math.round(performance.now() - started) },
    "request",
  );
}

async function routeStream(exchange: {
  readonly context: BoxdContext;
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly url: URL;
  readonly method: string;
}): Promise<void> {
  const { context, request, response, url, method } = exchange;
  const endpoint = `${method} ${url.pathname}`;
  switch (endpoint) {
    case `PUT ${streamRoutes.upload}`:
      return handleUpload(context, { request, response, url });
    case `GET ${streamRoutes.download}`:
      return handleDownload(context, response, url);
    case `GET ${streamRoutes.capture}`:
      return handleCapture(context, response);
    case `PUT ${streamRoutes.hydrate}`:
      return handleHydrate(context, request, response);
    default:
      throw new BoxError("not_found", `no endpoint ${endpoint}`);
  }
}

async function callHandler(
  handlers: Handlers,
  name: BoxOperationName,
  exchange: { readonly body: unknown; readonly response: ServerResponse },
): Promise<void> {
  const operation = boxOperations[name];
  const parsed = (operation.request as z.ZodType).safeParse(exchange.body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") ?? "";
    throw new BoxError(
      "invalid_request",
      `${name}: ${where ? `${where}: ` : ""}${issue?.message ?? ""}`,
    );
  }
  const handler = handlers[name] as (request: unknown) => Promise<unknown>;
  sendJson(exchange.response, 200, await handler(parsed.data));
}
