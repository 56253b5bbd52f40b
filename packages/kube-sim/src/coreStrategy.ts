/**
 * The typed half of a built-in kind that kube-sim models beyond storing it: what decoding the body
 * into the Go type does (conversion, defaults) and what the kind's REST strategy validates. Where a
 * decode failure surfaces depends on the verb, as in the real handlers: create and update answer
 * 400 (K: `transformDecodeError` in handlers/rest.go), a patch answers 422 on field `patch`
 * (K2 `applyPatchToCurrentObject`, the same shape as §3's array merge patch).
 */
import type { KubeStatusError, StatusCause } from "./errors.ts";
import { badRequest, invalid, invalidPatch, qualifiedKind } from "./errors.ts";
import type { KubeObject } from "./objects.ts";
import { meta } from "./objects.ts";
import type { ResourceType } from "./resourceTypes.ts";

/** What the Go JSON decoder reports, e.g. `illegal base64 data at input byte 4`. */
export class DecodeError extends Error {
  override readonly name = "DecodeError";
}

export interface CoreStrategy {
  /**
   * The body as the Go type holds it (conversion into the internal version, then `SetDefaults_*`);
   * throws {@link DecodeError}. Decoding a decoded object changes nothing.
   */
  decode(object: KubeObject): KubeObject;
  /** `Validate<Kind>` on create, `Validate<Kind>Update` (with `old`) on update: a 422's causes. */
  validate(object: KubeObject, old: KubeObject | undefined): StatusCause[];
}

/** How a create or update body that does not decode is answered (400). */
export function undecodableBody(
  type: ResourceType,
  version: string,
  error: DecodeError,
): KubeStatusError {
  return badRequest(
    `${type.kind} in version ${JSON.stringify(version)} cannot be handled as a ${type.kind}: ${error.message}`,
  );
}

/** Decodes a create or update body; a failure is the 400 of {@link undecodableBody}. */
export function decodeRequestBody(
  type: ResourceType,
  version: string,
  body: KubeObject,
): KubeObject {
  if (type.core === undefined) return body;
  try {
    return type.core.decode(body);
  } catch (error) {
    if (error instanceof DecodeError) throw undecodableBody(type, version, error);
    throw error;
  }
}

/** Decodes a patched object; a failure is the 422 on field `patch` that K2 answers. */
export function decodePatched(type: ResourceType, patched: KubeObject): KubeObject {
  if (type.core === undefined) return patched;
  try {
    return type.core.decode(patched);
  } catch (error) {
    if (error instanceof DecodeError) throw invalidPatch(JSON.stringify(patched), error.message);
    throw error;
  }
}

/**
 * The registry's step for a built-in kind: decode (a no-op for bodies the edge decoded, the
 * conversion for in-process writers) and validate, answering the 422 that names the Kind.
 */
export function admitCore(
  target: { type: ResourceType; version: string },
  objects: { object: KubeObject; old: KubeObject | undefined },
): KubeObject {
  const { type, version } = target;
  if (type.core === undefined) return objects.object;
  const object = decodeRequestBody(type, version, objects.object);
  const causes = type.core.validate(object, objects.old);
  if (causes.length > 0) throw invalidKind(type, meta(object).name ?? "", causes);
  return object;
}

function invalidKind(type: ResourceType, name: string, causes: StatusCause[]): KubeStatusError {
  return invalid(
    { subject: qualifiedKind(type), group: type.group, detailKind: type.kind, name },
    causes,
  );
}
