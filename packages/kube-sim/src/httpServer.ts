/**
 * The HTTP edge (§1): routes a request, runs the handler, and writes JSON with Content-Type on
 * every answer, errors included. Warnings collected during the request go out as Warning headers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestContext } from "./codec.ts";
import { fromStorage, parseDryRun, parseFieldValidation, stamp } from "./codec.ts";
import { KubeStatusError, internalError, notAcceptable, unknownResource } from "./errors.ts";
import { apiGroup, apiGroupList, apiResourceList, coreVersions, versionInfo } from "./discovery.ts";
import type { KubeObject } from "./objects.ts";
import { openApiDocuments } from "./openapi.ts";
import { OPENAPI_V2_PROTOBUF } from "./openapiProtobuf.ts";
import type { ObjectRegistry } from "./objectRegistry.ts";
import { queryFlag } from "./queryFlags.ts";
import { resourceKey } from "./objectRegistry.ts";
import type { ApiResponse, ResourceHandlers } from "./resourceHandlers.ts";
import { selectorOf } from "./listing.ts";
import type { ResourceRegistry } from "./resourceTypes.ts";
import type { Route } from "./routes.ts";
import { route } from "./routes.ts";
import type { ObjectStore } from "./store.ts";
import type { WatchHub } from "./watchStream.ts";
import { serveWatch } from "./watchStream.ts";

/** Requests larger than this are refused, like the real server's 3 MiB limit. */
const MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * A pre-dispatch step. It may hold a request (latency, hangs), answer it itself ("answered"), or
 * let it through ("continue"); it sees every request, discovery and unknown paths included.
 */
export type PreDispatch = (
  req: IncomingMessage,
  res: ServerResponse,
) => Promise<"continue" | "answered">;

export interface HttpResources {
  /** Runs before routing: the request log and fault injection (src/faults/). */
  preDispatch?: PreDispatch;
  /** Sees each request's body once it is read (the request log keeps it). */
  onBody?: (req: IncomingMessage, body: string) => void;
  store: ObjectStore;
  types: ResourceRegistry;
  registry: ObjectRegistry;
  handlers: ResourceHandlers;
  hub: WatchHub;
}

/** `299 - "<text>"` with the text quoted as an HTTP quoted-string. */
export function warningHeader(text: string): string {
  return `299 - "${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

function send(res: ServerResponse, response: ApiResponse, warnings: string[]): void {
  const headers: Record<string, string | string[]> = { "Content-Type": "application/json" };
  if (warnings.length > 0) headers.Warning = warnings.map(warningHeader);
  res.writeHead(response.status, headers);
  res.end(JSON.stringify(response.body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) {
      throw new KubeStatusError("RequestEntityTooLarge", "the request body is too large", {});
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function mediaRanges(accept: string | undefined): string[] {
  return (accept ?? "").split(",").map((range) => (range.split(";")[0] ?? "").trim().toLowerCase());
}

/** Whether an Accept header admits JSON (a missing one does). */
function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === "") return true;
  return mediaRanges(accept).some(
    (type) => type === "application/json" || type === "application/*" || type === "*/*",
  );
}

/** kubectl asks for /openapi/v2 in protobuf only; the only answer in protobuf the simulator has. */
function wantsOpenApiProtobuf(accept: string | undefined): boolean {
  return mediaRanges(accept).includes(OPENAPI_V2_PROTOBUF);
}

function discovery(
  routed: Route,
  req: IncomingMessage,
  types: ResourceRegistry,
): ApiResponse | undefined {
  switch (routed.kind) {
    case "version":
      return { status: 200, body: versionInfo() };
    case "coreVersions":
      return { status: 200, body: coreVersions(req.headers.host ?? "127.0.0.1") };
    case "groups":
      return { status: 200, body: apiGroupList(types) };
    case "group":
      return { status: 200, body: apiGroup(types, routed.group) };
    case "resources":
      return { status: 200, body: apiResourceList(types, routed.group, routed.version) };
    case "openapiV2":
      if (!acceptsJson(req.headers.accept)) throw notAcceptable();
      return { status: 200, body: openApiDocuments(types).v2 };
    case "openapiV3Index":
      return { status: 200, body: openApiDocuments(types).v3Index };
    case "openapiV3": {
      const document = openApiDocuments(types).v3.get(routed.groupVersion);
      if (document === undefined) throw unknownResource();
      return { status: 200, body: document };
    }
    case "resource":
      return undefined;
  }
}

/** The request listener of the simulator's server. */
export function requestListener(
  $: HttpResources,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void handle($, req, res).catch((error: unknown) => {
      const failure =
        error instanceof KubeStatusError
          ? error
          : internalError(error instanceof Error ? error.message : String(error));
      if (res.headersSent) {
        res.end();
        return;
      }
      send(res, { status: failure.code, body: failure.toStatus() }, []);
    });
  };
}

async function handle($: HttpResources, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if ((await $.preDispatch?.(req, res)) === "answered") return;
  const url = new URL(req.url ?? "/", "http://localhost");
  const method = req.method ?? "GET";
  const body = await readBody(req);
  $.onBody?.(req, body);
  const routed = route(url.pathname, $.types);
  if (routed.kind === "openapiV2" && wantsOpenApiProtobuf(req.headers.accept)) {
    // Not the requested type: its `@` is no valid media type, and client-go parses the answer's.
    res.writeHead(200, { "Content-Type": "application/octet-stream" });
    res.end(openApiDocuments($.types).v2Protobuf);
    return;
  }
  const described = discovery(routed, req, $.types);
  if (described !== undefined) {
    send(res, described, []);
    return;
  }
  if (routed.kind !== "resource") return;
  const { type, version, namespace, name, subresource } = routed;
  const served = type.versions.find((v) => v.name === version);
  const context: RequestContext = {
    warnings: [],
    fieldValidation: parseFieldValidation(url.searchParams.get("fieldValidation")),
    dryRun: parseDryRun(url.searchParams.getAll("dryRun")),
  };
  if (served?.deprecationWarning !== undefined) context.warnings.push(served.deprecationWarning);
  const target = { type, version, namespace };
  if (method === "GET" && name === undefined && queryFlag(url.searchParams, "watch")) {
    const timeout = url.searchParams.get("timeoutSeconds");
    serveWatch(
      res,
      {
        type,
        version,
        resource: resourceKey(type),
        namespace,
        matches: selectorOf(type, url.searchParams),
        resourceVersion: url.searchParams.get("resourceVersion") ?? undefined,
        bookmarks: queryFlag(url.searchParams, "allowWatchBookmarks"),
        timeoutSeconds: timeout === null ? undefined : Number(timeout),
        present: (object: KubeObject) => stamp(type, fromStorage(type, object, version), version),
      },
      { store: $.store, hub: $.hub, warnings: context.warnings.map(warningHeader) },
    );
    return;
  }
  let response: ApiResponse;
  try {
    response = $.handlers.handle(
      {
        method,
        target,
        name,
        subresource,
        query: url.searchParams,
        contentType: req.headers["content-type"],
        body,
      },
      context,
    );
  } catch (error) {
    // Failures keep the warnings gathered so far (a deprecated version warns on a 404 too).
    if (!(error instanceof KubeStatusError)) throw error;
    response = { status: error.code, body: error.toStatus() };
  }
  send(res, response, context.warnings);
}
