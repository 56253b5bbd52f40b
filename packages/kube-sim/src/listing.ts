/**
 * GET on a collection (§4.3): selectors, `limit`/`continue` paging, and the list shape (core
 * items without kind/apiVersion, custom resource items with them).
 */
import type { ApiResponse, ResourceRequest } from "./resourceHandlers.ts";
import type { StatusCause } from "./errors.ts";
import { KubeStatusError, badRequest, invalidOptions } from "./errors.ts";
import { fromStorage, stamp } from "./codec.ts";
import type { KubeObject } from "./objects.ts";
import { meta } from "./objects.ts";
import type { Target } from "./objectRegistry.ts";
import { resourceKey } from "./objectRegistry.ts";
import type { Matcher } from "./selectors.ts";
import { matcher, parseFieldSelector, parseLabelSelector } from "./selectors.ts";
import type { ObjectStore } from "./store.ts";
import type { ResourceType } from "./resourceTypes.ts";
import { groupVersion } from "./resourceTypes.ts";

/** The selector of a list or watch request, validated against the kind's field labels. */
export function selectorOf(type: ResourceType, query: URLSearchParams): Matcher {
  const labels = parseLabelSelector(query.get("labelSelector") ?? "");
  const fields = parseFieldSelector(query.get("fieldSelector") ?? "", type.fieldLabels);
  return matcher(labels, fields);
}

/** An object in the request's version with kind and apiVersion, as single objects always carry. */
export function present(target: Target, object: KubeObject): KubeObject {
  return stamp(target.type, fromStorage(target.type, object, target.version), target.version);
}

/**
 * A continue token: the list's resourceVersion and the last key served. Pages read the current
 * state after that key (the real server reads a snapshot at `rv`; our history is not MVCC).
 */
interface Continue {
  rv: number;
  after: string;
}

const keyOf = (object: KubeObject): string =>
  `${meta(object).namespace ?? ""}/${meta(object).name ?? ""}`;

const forbiddenMatch = (detail: string): StatusCause => ({
  reason: "FieldValueForbidden",
  message: `Forbidden: ${detail}`,
  field: "resourceVersionMatch",
});

/**
 * The ListOptions rules of a list (not a watch) on `resourceVersionMatch`, which the handler checks
 * before reading anything and answers with 422 Invalid on `ListOptions.meta.k8s.io` (K
 * `ValidateListOptions` in apimachinery's internalversion validation). The match itself changes
 * nothing here: every list is served from the current state (§4.3).
 */
export function validateListOptions(query: URLSearchParams): void {
  const match = query.get("resourceVersionMatch") ?? "";
  if (match === "") return;
  const resourceVersion = query.get("resourceVersion") ?? "";
  const causes: StatusCause[] = [];
  if (resourceVersion === "")
    causes.push(
      forbiddenMatch("resourceVersionMatch is forbidden unless resourceVersion is provided"),
    );
  if ((query.get("continue") ?? "") !== "")
    causes.push(forbiddenMatch("resourceVersionMatch is forbidden when continue is provided"));
  if (match !== "Exact" && match !== "NotOlderThan")
    causes.push({
      reason: "FieldValueNotSupported",
      message: `Unsupported value: ${JSON.stringify(match)}: supported values: "Exact", "NotOlderThan", ""`,
      field: "resourceVersionMatch",
    });
  if (match === "Exact" && resourceVersion === "0")
    causes.push(
      forbiddenMatch('resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
    );
  if (causes.length > 0) throw invalidOptions("ListOptions", causes);
}

export function listObjects(store: ObjectStore, request: ResourceRequest): ApiResponse {
  const { target, query } = request;
  const { type, version } = target;
  // Selectors are parsed while the query is decoded, so their 400 comes first.
  const matches = selectorOf(type, query);
  validateListOptions(query);
  const token = query.get("continue");
  let cont: Continue = { rv: store.currentRevision, after: "" };
  if (token !== null && token !== "") {
    try {
      cont = JSON.parse(Buffer.from(token, "base64url").toString()) as Continue;
    } catch {
      throw badRequest("continue key is not valid");
    }
    if (cont.rv < store.compactedRevision) {
      throw new KubeStatusError(
        "Expired",
        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
        {},
      );
    }
  }
  const rest = store
    .list(resourceKey(type), target.namespace)
    .filter((object) => matches(object) && keyOf(object) > cont.after);
  const limit = Number(query.get("limit") ?? "0");
  const page = limit > 0 ? rest.slice(0, limit) : rest;
  const last = page.at(-1);
  const items = page.map((object) => {
    const shown = present(target, object);
    // Core list items come without kind/apiVersion; custom resource items keep them (§2).
    if (type.custom === undefined) {
      delete shown.kind;
      delete shown.apiVersion;
    }
    return shown;
  });
  const next =
    page.length < rest.length && last !== undefined
      ? Buffer.from(JSON.stringify({ rv: cont.rv, after: keyOf(last) })).toString("base64url")
      : "";
  return {
    status: 200,
    body: {
      apiVersion: groupVersion(type, version),
      kind: type.listKind,
      metadata: { continue: next, resourceVersion: String(cont.rv) },
      items,
    },
  };
}
