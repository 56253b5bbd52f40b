/**
 * What a request is, in the API server's own terms (verb, resource, namespace, name), read from
 * the method, path and query before any handler runs. Faults match on it and the log records it.
 */
import type { IncomingMessage } from "node:http";
import { KubeStatusError } from "../errors.ts";
import { queryFlag } from "../queryFlags.ts";
import type { ResourceRegistry, ResourceType } from "../resourceTypes.ts";
import { route } from "../routes.ts";

/** Kubernetes' request verbs; `other` is a method the server answers 405. */
export type Verb =
  | "get"
  | "list"
  | "watch"
  | "create"
  | "update"
  | "patch"
  | "delete"
  | "deletecollection"
  | "other";

export interface RequestInfo {
  method: string;
  path: string;
  query: Record<string, string>;
  verb: Verb;
  /** Undefined for discovery and unknown paths. */
  type: ResourceType | undefined;
  group: string | undefined;
  version: string | undefined;
  /** The plural, e.g. `sandboxes`. */
  resource: string | undefined;
  subresource: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
  /** The request's Content-Type header. */
  contentType: string | undefined;
  fieldManager: string | undefined;
  dryRun: boolean;
}

function verbOf(method: string, named: boolean, watch: boolean): Verb {
  switch (method) {
    case "GET":
      if (named) return "get";
      return watch ? "watch" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return named ? "delete" : "deletecollection";
    default:
      return "other";
  }
}

export function requestInfo(req: IncomingMessage, types: ResourceRegistry): RequestInfo {
  const url = new URL(req.url ?? "/", "http://localhost");
  const method = req.method ?? "GET";
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) query[key] = value;
  const watch = queryFlag(url.searchParams, "watch");
  let resource:
    | {
        type: ResourceType;
        version: string;
        namespace: string | undefined;
        name: string | undefined;
        subresource: string | undefined;
      }
    | undefined;
  try {
    const routed = route(url.pathname, types);
    if (routed.kind === "resource") resource = routed;
  } catch (error) {
    // Unknown paths are answered 404 by the handler; here they are just unnamed requests.
    if (!(error instanceof KubeStatusError)) throw error;
  }
  const contentType = req.headers["content-type"];
  return {
    method,
    path: url.pathname,
    query,
    verb: verbOf(method, resource?.name !== undefined, watch),
    type: resource?.type,
    group: resource?.type.group,
    version: resource?.version,
    resource: resource?.type.plural,
    subresource: resource?.subresource,
    namespace: resource?.namespace,
    name: resource?.name,
    contentType,
    fieldManager: url.searchParams.get("fieldManager") ?? undefined,
    dryRun: url.searchParams.getAll("dryRun").includes("All"),
  };
}
