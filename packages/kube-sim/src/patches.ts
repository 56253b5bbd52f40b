/**
 * PATCH bodies (§4.5): the content types each kind accepts, and applying JSON Patch (RFC 6902),
 * merge patch (RFC 7386) and server-side apply (as create-or-merge, without field ownership).
 */
import fastJsonPatch from "fast-json-patch";
import type { Operation } from "fast-json-patch";
import { load as parseYaml } from "js-yaml";
import {
  ACCEPTED_PATCH_TYPES,
  KubeStatusError,
  badRequest,
  genericInvalid,
  invalidPatch,
  unsupportedMediaType,
} from "./errors.ts";
import type { KubeObject } from "./objects.ts";
import { clone, isObject } from "./objects.ts";
import type { ResourceType } from "./resourceTypes.ts";

export type PatchType = "json" | "merge" | "strategic" | "apply";

/** The real server refuses JSON patches longer than this (K2). */
const MAX_JSON_PATCH_OPS = 10_000;

/** Core kinds also take strategic merge patch (K3 lists them in this order). */
const CORE_PATCH_TYPES =
  "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml";

/** The patch type of a Content-Type header, or the 415 for a type this kind does not take. */
export function patchTypeOf(contentType: string | undefined, type: ResourceType): PatchType {
  const media = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const accepted = type.custom === undefined ? CORE_PATCH_TYPES : ACCEPTED_PATCH_TYPES;
  switch (media) {
    case "application/json-patch+json":
      return "json";
    case "application/merge-patch+json":
      return "merge";
    case "application/apply-patch+yaml":
      return "apply";
    case "application/strategic-merge-patch+json":
      // Custom resources have no Go struct tags to merge by, so the real server refuses SMP (K4).
      if (type.custom === undefined) return "strategic";
      break;
  }
  throw unsupportedMediaType(accepted);
}

/** RFC 7386: objects merge recursively, `null` deletes, everything else (arrays too) replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const result: KubeObject = isObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) Reflect.deleteProperty(result, key);
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function applyJsonPatch(current: KubeObject, text: string): KubeObject {
  const ops = parseJson(text);
  if (!Array.isArray(ops)) {
    throw badRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  }
  if (ops.length > MAX_JSON_PATCH_OPS) {
    throw new KubeStatusError(
      "RequestEntityTooLarge",
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPS}, got ${ops.length}`,
      {},
    );
  }
  try {
    // validate=true makes a failed `test` and a missing path throw instead of being skipped.
    const result = fastJsonPatch.applyPatch(
      clone(current),
      ops as Operation[],
      true,
      false,
    ).newDocument;
    if (!isObject(result)) throw genericInvalid();
    return result;
  } catch {
    // The library's own text never reaches the client: the real server answers the generic 422 (§3).
    throw genericInvalid();
  }
}

function applyMergePatch(current: KubeObject, text: string): KubeObject {
  const patch = parseJson(text);
  if (patch === undefined || patch === null) throw badRequest("Invalid JSON Patch");
  if (Array.isArray(patch)) {
    // The array replaces the whole document, which then fails to decode as an object (§3, I9).
    throw invalidPatch(
      text,
      'couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    );
  }
  const merged = mergePatch(current, patch);
  if (!isObject(merged)) throw badRequest("Invalid JSON Patch");
  return merged;
}

/** Parses an apply body: YAML or JSON (JSON is YAML), which must be one object. */
export function parseApplyBody(text: string): KubeObject {
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw badRequest(`error decoding YAML: ${error instanceof Error ? error.message : "invalid"}`);
  }
  if (!isObject(parsed)) throw badRequest("error decoding YAML: the apply body is not an object");
  return parsed;
}

/**
 * The patched object. Strategic merge on core kinds is treated as a merge patch, which is right
 * for the map fields (labels, annotations) Berth patches; list merge keys are not modelled.
 */
export function applyPatch(current: KubeObject, patchType: PatchType, text: string): KubeObject {
  switch (patchType) {
    case "json":
      return applyJsonPatch(current, text);
    case "merge":
    case "strategic":
      return applyMergePatch(current, text);
    case "apply":
      return mergePatch(current, parseApplyBody(text)) as KubeObject;
  }
}
