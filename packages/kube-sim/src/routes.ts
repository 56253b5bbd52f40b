/** Request paths (§1): discovery documents and resource paths for core and group APIs. */
import { unknownResource } from "./errors.ts";
import type { ResourceRegistry, ResourceType } from "./resourceTypes.ts";

export type Route =
  | { kind: "version" }
  | { kind: "coreVersions" }
  | { kind: "groups" }
  | { kind: "group"; group: string }
  | { kind: "resources"; group: string; version: string }
  | { kind: "openapiV2" }
  | { kind: "openapiV3Index" }
  /** `api/v1` or `apis/<group>/<version>`; may name no served group version (then it is a 404). */
  | { kind: "openapiV3"; groupVersion: string }
  | {
      kind: "resource";
      type: ResourceType;
      version: string;
      /** Undefined for cluster-scoped kinds and cluster-wide lists. */
      namespace: string | undefined;
      name: string | undefined;
      subresource: string | undefined;
    };

/** Maps a path to a route; anything unknown is the generic 404 of §1. */
export function route(pathname: string, types: ResourceRegistry): Route {
  const parts = pathname
    .split("/")
    .filter((part) => part !== "")
    .map(decodeURIComponent);
  const [root, ...rest] = parts;
  if (root === "version" && rest.length === 0) return { kind: "version" };
  if (root === "openapi") {
    const [dialect, ...groupVersion] = rest;
    if (dialect === "v2" && groupVersion.length === 0) return { kind: "openapiV2" };
    if (dialect === "v3" && groupVersion.length === 0) return { kind: "openapiV3Index" };
    if (dialect === "v3") return { kind: "openapiV3", groupVersion: groupVersion.join("/") };
    throw unknownResource();
  }
  if (root === "api") {
    if (rest.length === 0) return { kind: "coreVersions" };
    const [version = "", ...path] = rest;
    if (path.length === 0 && version === "v1") return { kind: "resources", group: "", version };
    return resourceRoute({ group: "", version, path }, types);
  }
  if (root === "apis") {
    const [group, version, ...path] = rest;
    if (group === undefined) return { kind: "groups" };
    if (version === undefined) {
      if (types.types.some((type) => type.group === group)) return { kind: "group", group };
      throw unknownResource();
    }
    if (path.length === 0) {
      if (
        types.types.some(
          (type) => type.group === group && type.versions.some((v) => v.name === version),
        )
      ) {
        return { kind: "resources", group, version };
      }
      throw unknownResource();
    }
    return resourceRoute({ group, version, path }, types);
  }
  throw unknownResource();
}

function resourceRoute(
  request: { group: string; version: string; path: string[] },
  types: ResourceRegistry,
): Route {
  const { group, version, path } = request;
  // `namespaces/<ns>/<plural>…` is a namespaced path; `namespaces[/<name>]` is the Namespace kind.
  const namespaced = path[0] === "namespaces" && path.length >= 3;
  const [plural = "", name, subresource, ...extra] = namespaced ? path.slice(2) : path;
  const type = types.find(group, version, plural);
  if (type === undefined || extra.length > 0) throw unknownResource();
  const namespace = namespaced ? path[1] : undefined;
  // A namespaced object needs its namespace; a cluster-scoped kind has none.
  if (namespaced && !type.namespaced) throw unknownResource();
  if (!namespaced && type.namespaced && name !== undefined) throw unknownResource();
  return { kind: "resource", type, version, namespace, name, subresource };
}
