import type { CustomResourceType, FieldValidation } from "./types.ts";

/** What the server does about an admission's pruned fields under a `fieldValidation` mode. */
export type UnknownFieldOutcome =
  | { kind: "accept"; warnings: string[] }
  /** Answer 400 BadRequest with this message (the body's decode failed). */
  | { kind: "reject"; message: string };

function unknownField(path: string): string {
  return `unknown field "${path}"`;
}

/**
 * Applies `fieldValidation` to the fields admission pruned (§5): `Ignore` drops them silently,
 * `Warn` (the default) drops them with one `Warning: 299 - "unknown field \"<path>\""` each,
 * `Strict` refuses the request with Kubernetes' strict-decoding text.
 */
export function unknownFieldOutcome(
  mode: FieldValidation,
  resource: { type: CustomResourceType; version: string },
  unknownFields: readonly string[],
): UnknownFieldOutcome {
  switch (mode) {
    case "Ignore":
      return { kind: "accept", warnings: [] };
    case "Warn":
      return { kind: "accept", warnings: unknownFields.map(unknownField) };
    case "Strict": {
      if (unknownFields.length === 0) return { kind: "accept", warnings: [] };
      const { kind } = resource.type;
      const errors = unknownFields.map(unknownField).join(", ");
      return {
        kind: "reject",
        message: `${kind} in version "${resource.version}" cannot be handled as a ${kind}: strict decoding error: ${errors}`,
      };
    }
  }
}
