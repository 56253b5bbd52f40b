/**
 * Versions and schemas of a request: objects are stored at the storage version and converted to
 * and from the version a request names (§5); custom resources pass the schema layer's defaulting,
 * pruning and validation, with unknown fields handled per `fieldValidation`.
 */
import type { UserInfo } from "./admission.ts";
import { admitCore } from "./coreStrategy.ts";
import type { KubeObject } from "./objects.ts";
import { meta } from "./objects.ts";
import { badRequest, invalid, qualifiedKind } from "./errors.ts";
import type { ResourceType } from "./resourceTypes.ts";
import { groupVersion } from "./resourceTypes.ts";
import type { FieldValidation } from "./schema/index.ts";
import {
  admitCustomResource,
  convertCustomResource,
  defaultCustomResource,
} from "./schema/index.ts";

/** Per-request state the write paths add to: Warning headers and the fieldValidation mode. */
export interface RequestContext {
  warnings: string[];
  fieldValidation: FieldValidation;
  /** `dryRun=All`: every step runs, nothing is stored. */
  dryRun?: boolean;
  /** The writer, as admission sees it; unset means {@link DEFAULT_USER} (no authentication). */
  userInfo?: UserInfo;
}

export function stamp(type: ResourceType, object: KubeObject, version: string): KubeObject {
  return { apiVersion: groupVersion(type, version), kind: type.kind, ...object };
}

/** The stored form of an object given in `version`. */
export function toStorage(type: ResourceType, object: KubeObject): KubeObject {
  const stamped = {
    ...object,
    apiVersion: groupVersion(type, type.storageVersion),
    kind: type.kind,
  };
  if (type.custom === undefined || object.apiVersion === stamped.apiVersion) return stamped;
  return { ...convertCustomResource(type.custom, object, type.storageVersion), kind: type.kind };
}

/** A stored object as `version` shows it, with that version's defaults (§5: defaults apply on read too). */
export function fromStorage(type: ResourceType, object: KubeObject, version: string): KubeObject {
  if (type.custom === undefined) return object;
  const converted =
    version === type.storageVersion ? object : convertCustomResource(type.custom, object, version);
  return defaultCustomResource(type.custom, version, converted);
}

/**
 * Defaults, prunes and validates a custom resource; a core kind with a modelled strategy is
 * decoded and validated by it (coreStrategy.ts), the others pass through. Unknown fields
 * become warnings (Warn, the default), a 400 (Strict) or nothing (Ignore); causes become the
 * 422 of §5 naming the Kind.
 */
export function admitSchema(
  target: { type: ResourceType; version: string },
  objects: { object: KubeObject; old: KubeObject | undefined },
  context: RequestContext,
): KubeObject {
  const { type, version } = target;
  if (type.custom === undefined) return admitCore(target, objects);
  const admission = admitCustomResource(type.custom, version, objects.object, objects.old);
  const unknown = admission.unknownFields.map((field) => `unknown field "${field}"`);
  switch (context.fieldValidation) {
    case "Strict":
      if (unknown.length > 0) throw badRequest(`strict decoding error: ${unknown.join(", ")}`);
      break;
    case "Warn":
      context.warnings.push(...unknown);
      break;
    case "Ignore":
      break;
  }
  if (admission.causes.length > 0) {
    throw invalid(
      {
        subject: qualifiedKind(type),
        group: type.group,
        detailKind: type.kind,
        name: meta(objects.object).name ?? "",
      },
      admission.causes.map(({ reason, message, field }) => ({ reason, message, field })),
    );
  }
  return admission.object;
}

/** `dryRun` accepts only `All` (the one stage Kubernetes defines). */
export function parseDryRun(values: string[]): boolean {
  for (const value of values) {
    if (value !== "All")
      throw badRequest(`Invalid dry run value: ${JSON.stringify(value)}; supported values: "All"`);
  }
  return values.length > 0;
}

export function parseFieldValidation(value: string | null): FieldValidation {
  switch (value) {
    case null:
    case "":
    case "Warn":
      return "Warn";
    case "Strict":
    case "Ignore":
      return value;
    default:
      throw badRequest(
        `fieldValidation must be one of "Ignore", "Warn", "Strict" or empty, not "${value}"`,
      );
  }
}
