/**
 * The verbs on resource paths (§4): decode the request, call the registry, encode the answer at
 * the request's version. Watch is streamed by the HTTP layer; everything else answers here.
 */
import type { RequestContext } from "./codec.ts";
import { stamp } from "./codec.ts";
import type { DeletionSystem } from "./deletion.ts";
import { parseDeleteOptions } from "./deletion.ts";
import { deleteCollection } from "./deleteCollection.ts";
import { decodePatched, decodeRequestBody } from "./coreStrategy.ts";
import { KubeStatusError, badRequest, methodNotAllowed, notFound } from "./errors.ts";
import type { KubeObject } from "./objects.ts";
import { isObject, meta } from "./objects.ts";
import type { ObjectRegistry, Target } from "./objectRegistry.ts";
import { resourceKey } from "./objectRegistry.ts";
import { listObjects, present } from "./listing.ts";
import { applyPatch, parseApplyBody, patchTypeOf } from "./patches.ts";
import type { ScalePaths } from "./scale.ts";
import { applyScale, scaleOf } from "./scale.ts";
import type { ObjectStore } from "./store.ts";
import { groupVersion } from "./resourceTypes.ts";

export interface ApiResponse {
  status: number;
  body: unknown;
}

export interface ResourceRequest {
  method: string;
  target: Target;
  name: string | undefined;
  subresource: string | undefined;
  query: URLSearchParams;
  contentType: string | undefined;
  body: string;
}

export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw badRequest(
      `error decoding request body: ${error instanceof Error ? error.message : "invalid JSON"}`,
    );
  }
}

function objectBody(text: string): KubeObject {
  const body = parseJsonBody(text);
  if (!isObject(body)) throw badRequest("the request body must be a JSON object");
  return body;
}

export class ResourceHandlers {
  constructor(
    private readonly $: { store: ObjectStore; registry: ObjectRegistry; deletion: DeletionSystem },
  ) {}

  handle(request: ResourceRequest, context: RequestContext): ApiResponse {
    const { method, target, name, subresource } = request;
    const scale = target.type.versions.find((v) => v.name === target.version)?.scale;
    if (subresource === "scale" && scale !== undefined && name !== undefined) {
      return this.scale(request, { name, paths: scale }, context);
    }
    if (subresource !== undefined && (subresource !== "status" || !target.type.statusSubresource)) {
      // An undeclared subresource on an existing kind reads like a missing object (§1, K4).
      throw notFound(target.type, name ?? "");
    }
    if (name === undefined) {
      if (method === "GET") return listObjects(this.$.store, request);
      if (method === "POST")
        return {
          status: 201,
          body: present(target, this.$.registry.create(target, this.decodeBody(request), context)),
        };
      if (method === "DELETE") {
        const options = parseDeleteOptions(parseJsonBody(request.body), request.query);
        return deleteCollection(this.$, { target, query: request.query, options }, context);
      }
      throw methodNotAllowed();
    }
    const status = subresource === "status" ? "status" : "";
    switch (method) {
      case "GET":
        return { status: 200, body: present(target, this.$.registry.read(target, name)) };
      case "PUT": {
        const body = this.decodeBody(request);
        return {
          status: 200,
          body: present(
            target,
            this.$.registry.update(
              target,
              { name, body, subresource: status, conditional: true },
              context,
            ),
          ),
        };
      }
      case "PATCH":
        return this.patch(request, name, context);
      case "DELETE":
        return this.delete(request, name, context);
      default:
        throw methodNotAllowed();
    }
  }

  /** The body in the request's version; a kind or apiVersion that names another kind is refused. */
  private decodeBody(request: ResourceRequest): KubeObject {
    const body = objectBody(request.body);
    const { type, version } = request.target;
    const expected = groupVersion(type, version);
    if (body.apiVersion !== undefined && body.apiVersion !== expected) {
      throw badRequest(
        `the API version in the data (${JSON.stringify(body.apiVersion)}) does not match the expected API version (${expected})`,
      );
    }
    if (body.kind !== undefined && body.kind !== type.kind) {
      throw badRequest(
        `the kind in the data (${JSON.stringify(body.kind)}) does not match the expected kind (${type.kind})`,
      );
    }
    return decodeRequestBody(type, version, { ...body, apiVersion: expected, kind: type.kind });
  }

  private scale(
    request: ResourceRequest,
    scale: { name: string; paths: ScalePaths },
    context: RequestContext,
  ): ApiResponse {
    const { target } = request;
    const { name, paths } = scale;
    const current = present(target, this.$.registry.read(target, name));
    let body: KubeObject;
    switch (request.method) {
      case "GET":
        return { status: 200, body: scaleOf(current, paths) };
      case "PUT":
        body = objectBody(request.body);
        break;
      case "PATCH":
        body = applyPatch(
          scaleOf(current, paths),
          patchTypeOf(request.contentType, target.type),
          request.body,
        );
        break;
      default:
        throw methodNotAllowed();
    }
    const updated = this.$.registry.update(
      target,
      { name, body: applyScale(current, body, paths), subresource: "", conditional: false },
      context,
    );
    return { status: 200, body: scaleOf(present(target, updated), paths) };
  }

  private patch(request: ResourceRequest, name: string, context: RequestContext): ApiResponse {
    const { target, query } = request;
    const patchType = patchTypeOf(request.contentType, target.type);
    const fieldManager = query.get("fieldManager") ?? "";
    if (patchType !== "apply" && query.has("force")) {
      throw new KubeStatusError(
        "Invalid",
        'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
        {
          group: "meta.k8s.io",
          kind: "PatchOptions",
          causes: [
            {
              reason: "FieldValueForbidden",
              message: "Forbidden: may not be specified for non-apply patch",
              field: "force",
            },
          ],
        },
      );
    }
    if (patchType === "apply" && fieldManager === "") {
      throw new KubeStatusError(
        "Invalid",
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
        {
          group: "meta.k8s.io",
          kind: "PatchOptions",
          causes: [
            {
              reason: "FieldValueRequired",
              message: "Required value: is required for apply patch",
              field: "fieldManager",
            },
          ],
        },
      );
    }
    const stored = this.$.store.get(resourceKey(target.type), target.namespace, name);
    if (stored === undefined) {
      if (patchType !== "apply") throw notFound(target.type, name);
      // Apply creates what is missing (K2 forceAllowCreate).
      const body = {
        ...parseApplyBody(request.body),
        apiVersion: groupVersion(target.type, target.version),
        kind: target.type.kind,
      };
      meta(body).name ??= name;
      const decoded = decodePatched(target.type, body);
      return {
        status: 201,
        body: present(target, this.$.registry.create(target, decoded, context)),
      };
    }
    const current = present(target, stored);
    const patched = decodePatched(target.type, applyPatch(current, patchType, request.body));
    // A resourceVersion the patch sets is an optimistic lock, checked by the update (§4.5);
    // without one the patch never conflicts.
    const patchedRv = meta(patched).resourceVersion;
    if (patchedRv === undefined || patchedRv === "")
      meta(patched).resourceVersion = meta(stored).resourceVersion;
    return this.update(request, name, { body: patched, context });
  }

  private update(
    request: ResourceRequest,
    name: string,
    input: { body: KubeObject; context: RequestContext },
  ): ApiResponse {
    const subresource = request.subresource === "status" ? "status" : "";
    const updated = this.$.registry.update(
      request.target,
      { name, body: input.body, subresource, conditional: false },
      input.context,
    );
    return { status: 200, body: present(request.target, updated) };
  }

  private delete(request: ResourceRequest, name: string, context: RequestContext): ApiResponse {
    const { target, query } = request;
    if (request.subresource !== undefined) throw methodNotAllowed();
    const options = parseDeleteOptions(parseJsonBody(request.body), query);
    const outcome = this.$.deletion.delete(target, { name, options }, context);
    const type = target.type;
    if (outcome.kind === "removed" && !type.returnsDeletedObject) {
      const uid = meta(outcome.object).uid ?? "";
      const details =
        type.group === ""
          ? { name, kind: type.plural, uid }
          : { name, group: type.group, kind: type.plural, uid };
      return {
        status: 200,
        body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details },
      };
    }
    return { status: 200, body: stamp(type, outcome.object, target.version) };
  }
}
