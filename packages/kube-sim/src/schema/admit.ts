import { isBlocking, RULES_NOT_CHECKED } from "./causes.ts";
import { schemaOf } from "./compile.ts";
import { applyDefaultsInPlace } from "./defaults.ts";
import { cloneJson, isRecord } from "./json.ts";
import { validateListsAndEmbedded } from "./listTypes.ts";
import { pruneUnknownFields } from "./prune.ts";
import { hasRules, runValidationRules } from "./rules.ts";
import type { Admission, CustomResourceType, FieldCause } from "./types.ts";
import { validateAgainstSchema } from "./validate.ts";

/** One create or update of a custom resource, for {@link admitCustomResourceRequest}. */
export interface AdmissionRequest {
  type: CustomResourceType;
  version: string;
  object: Record<string, unknown>;
  /** On update, the stored object converted to `version`; undefined on create. */
  old: Record<string, unknown> | undefined;
  /**
   * The server's own ObjectMeta causes (name, labels, …). Kubernetes lists them first, and a
   * blocking one (e.g. `metadata.name: Required value`) also keeps the CEL rules from running.
   */
  metadataCauses?: readonly FieldCause[];
}

/**
 * What the API server does to a custom resource on create and update, in its order: prune
 * unknown fields, apply defaults, validate against the OpenAPI schema, check list types and
 * embedded resources, then run the CEL rules unless a blocking error came first (Kubernetes
 * then adds a cause saying the rules were not checked).
 *
 * Pure: neither the object nor the old one is changed. Metadata itself is left to the caller.
 * Validation ratcheting (ignoring errors in fields an update leaves unchanged) is not done.
 */
export function admitCustomResourceRequest(request: AdmissionRequest): Admission {
  const { type, version, object, old } = request;
  const schema = schemaOf(type, version);
  const unknownFields: string[] = [];
  const admitted = pruneUnknownFields(object, schema, unknownFields);
  applyDefaultsInPlace(admitted, schema);
  const causes = [
    ...(request.metadataCauses ?? []),
    ...validateAgainstSchema(admitted, schema),
    ...validateListsAndEmbedded(admitted, schema),
  ];
  if (hasRules(schema)) {
    if (causes.some(isBlocking)) causes.push(RULES_NOT_CHECKED);
    else causes.push(...runValidationRules(admitted, old, schema));
  }
  return { object: admitted, unknownFields, causes };
}

/**
 * {@link admitCustomResourceRequest} without metadata causes. On update `old` is the stored
 * object converted to `version` (transition rules compare against it); on create, undefined.
 */
// Four parameters break the house limit of three: this signature is the contract the server
// half of kube-sim is written against.
// eslint-disable-next-line @typescript-eslint/max-params
export function admitCustomResource(
  type: CustomResourceType,
  version: string,
  object: Record<string, unknown>,
  old: Record<string, unknown> | undefined,
): Admission {
  return admitCustomResourceRequest({ type, version, object, old });
}

/** The schema defaults applied to a copy of `object`, as the server does to objects it reads. */
export function defaultCustomResource(
  type: CustomResourceType,
  version: string,
  object: Record<string, unknown>,
): Record<string, unknown> {
  const copy = cloneJson(object);
  applyDefaultsInPlace(copy, schemaOf(type, version));
  return isRecord(copy) ? copy : {};
}
