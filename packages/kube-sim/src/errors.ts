/**
 * Kubernetes `metav1.Status` failures as typed errors. Every non-2xx answer of the simulator is one
 * of these, built by the constructors below so the message templates live in one place (spec §3).
 */

/** The closed set of Status reasons the simulator sends. */
export type StatusReason =
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Invalid"
  | "BadRequest"
  | "UnsupportedMediaType"
  | "NotAcceptable"
  | "MethodNotAllowed"
  | "RequestEntityTooLarge"
  | "Expired"
  | "InternalError"
  // Admission denials (§6.4) and injected faults.
  | "Forbidden"
  | "Unauthorized"
  | "TooManyRequests"
  | "ServiceUnavailable";

/** One entry of `details.causes`; the key order is the one the real server serializes. */
export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

/** A cause with only a message, as a ValidatingAdmissionPolicy denial carries (§6.4). */
export interface MessageCause {
  message: string;
}

/** Build it in this key order: it is the order Kubernetes serializes (K1). */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  retryAfterSeconds?: number;
  causes?: (StatusCause | MessageCause)[];
}

/** What a resource is called in messages: `<plural>.<group>` or `<Kind>.<group>`. */
export interface ResourceNames {
  group: string;
  plural: string;
  kind: string;
}

const CODES: Record<StatusReason, number> = {
  NotFound: 404,
  AlreadyExists: 409,
  Conflict: 409,
  Invalid: 422,
  BadRequest: 400,
  UnsupportedMediaType: 415,
  NotAcceptable: 406,
  MethodNotAllowed: 405,
  RequestEntityTooLarge: 413,
  Expired: 410,
  InternalError: 500,
  Forbidden: 403,
  Unauthorized: 401,
  TooManyRequests: 429,
  ServiceUnavailable: 503,
};

/** A failure that the HTTP layer turns into a Status body with `code` as the HTTP status. */
export class KubeStatusError extends Error {
  override readonly name = "KubeStatusError";
  readonly code: number;

  constructor(
    readonly reason: StatusReason,
    message: string,
    // `undefined` means the body has no `details` key at all, as for BadRequest (§3 "none").
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.code = CODES[reason];
  }

  /** The Status body, keys in the order the real server writes them (§3). */
  toStatus(): Record<string, unknown> {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
      reason: this.reason,
      ...(this.details === undefined ? {} : { details: this.details }),
      code: this.code,
    };
  }
}

/** `sandboxes.agents.x-k8s.io` or, for the core group, `pods`. */
export function qualifiedResource(names: ResourceNames): string {
  return names.group === "" ? names.plural : `${names.plural}.${names.group}`;
}

/** `Sandbox.agents.x-k8s.io` or, for the core group, `Pod`. */
export function qualifiedKind(names: ResourceNames): string {
  return names.group === "" ? names.kind : `${names.kind}.${names.group}`;
}

/** The details of NotFound/AlreadyExists/Conflict: the group key is omitted for core, like Go's omitempty. */
function objectDetails(names: ResourceNames, name: string, kind: string): StatusDetails {
  return names.group === "" ? { name, kind } : { name, group: names.group, kind };
}

export function notFound(names: ResourceNames, name: string): KubeStatusError {
  return new KubeStatusError(
    "NotFound",
    `${qualifiedResource(names)} "${name}" not found`,
    objectDetails(names, name, names.plural),
  );
}

/** The 404 for an unknown group, version, resource or path (§1). */
export function unknownResource(): KubeStatusError {
  return new KubeStatusError("NotFound", "the server could not find the requested resource", {});
}

export function alreadyExists(
  names: ResourceNames,
  name: string,
  beingDeleted: boolean,
): KubeStatusError {
  const prefix = beingDeleted ? "object is being deleted: " : "";
  return new KubeStatusError(
    "AlreadyExists",
    `${prefix}${qualifiedResource(names)} "${name}" already exists`,
    objectDetails(names, name, names.plural),
  );
}

export const STALE_OBJECT =
  "the object has been modified; please apply your changes to the latest version and try again";

/** 409 on `<plural>.<group>`; `why` defaults to the stale-resourceVersion text. */
export function conflict(names: ResourceNames, name: string, why = STALE_OBJECT): KubeStatusError {
  return new KubeStatusError(
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(names)} "${name}": ${why}`,
    objectDetails(names, name, names.plural),
  );
}

/** The early DELETE precondition failure, which names the Kind rather than the plural (§3, K16). */
export function deletePreconditionConflict(
  names: ResourceNames,
  name: string,
  why: string,
): KubeStatusError {
  return new KubeStatusError(
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedKind(names)} "${name}": ${why}`,
    objectDetails(names, name, names.kind),
  );
}

/** A request's options refused as the real server refuses them: `<Kind>.meta.k8s.io "" is invalid`. */
export function invalidOptions(
  kind: "DeleteOptions" | "ListOptions",
  causes: StatusCause[],
): KubeStatusError {
  return invalid(
    { subject: `${kind}.meta.k8s.io`, group: "meta.k8s.io", detailKind: kind, name: "" },
    causes,
  );
}

/**
 * 422 Invalid. `subject` is how the object is named (`Sandbox.agents.x-k8s.io` for schema errors,
 * `sandboxes.agents.x-k8s.io` for the storage-level ones) and `detailKind` what `details.kind` holds.
 * Several causes are joined like Kubernetes' aggregate error: `[a, b]`.
 */
export function invalid(
  target: { subject: string; group: string; detailKind: string; name: string },
  causes: StatusCause[],
): KubeStatusError {
  const parts = causes.map((cause) => `${cause.field}: ${cause.message}`);
  const joined = parts.length === 1 ? (parts[0] ?? "") : `[${parts.join(", ")}]`;
  // An empty name is left out, as Go's `omitempty` leaves it out of StatusDetails.
  const details: StatusDetails = target.name === "" ? {} : { name: target.name };
  if (target.group !== "") details.group = target.group;
  details.kind = target.detailKind;
  details.causes = causes;
  return new KubeStatusError(
    "Invalid",
    `${target.subject} "${target.name}" is invalid: ${joined}`,
    details,
  );
}

/** 422 with the generic text and empty details, as for a JSON patch whose ops fail (§3). */
export function genericInvalid(): KubeStatusError {
  return new KubeStatusError(
    "Invalid",
    "the server rejected our request due to an error in our request",
    {},
  );
}

/**
 * 422 for a patch whose result does not decode into the kind's type: `value` is the patched
 * object as text, `detail` the decoder's error (K2 `applyPatchToCurrentObject`, §3, I9). The
 * subject is empty and details hold only the cause, as `NewInvalid(schema.GroupKind{}, "", …)`.
 */
export function invalidPatch(value: string, detail: string): KubeStatusError {
  const message = `Invalid value: ${JSON.stringify(value)}: ${detail}`;
  return new KubeStatusError("Invalid", `"" is invalid: patch: ${message}`, {
    causes: [{ reason: "FieldValueInvalid", message, field: "patch" }],
  });
}

export function badRequest(message: string): KubeStatusError {
  return new KubeStatusError("BadRequest", message);
}

export const ACCEPTED_PATCH_TYPES =
  "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";

export function unsupportedMediaType(accepted: string): KubeStatusError {
  return new KubeStatusError(
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted}`,
  );
}

/** An `Accept` header naming no media type the simulator writes (it writes only JSON). */
export function notAcceptable(): KubeStatusError {
  return new KubeStatusError(
    "NotAcceptable",
    "only the following media types are accepted: application/json",
    {},
  );
}

export function methodNotAllowed(): KubeStatusError {
  return new KubeStatusError(
    "MethodNotAllowed",
    "the server does not allow this method on the requested resource",
    {},
  );
}

export function internalError(message: string): KubeStatusError {
  return new KubeStatusError("InternalError", message, {});
}

/** The watch ERROR event's object for a compacted resourceVersion (§4.8); it has no details. */
export function expired(requested: string, compacted: number): KubeStatusError {
  return new KubeStatusError("Expired", `too old resource version: ${requested} (${compacted})`);
}
