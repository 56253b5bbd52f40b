import { formatFieldValue } from "./json.ts";
import type { FieldCause } from "./types.ts";

/**
 * Builders for the causes Kubernetes' `field.Error` constructors produce; the message is the
 * cause's `message`, the text after `<field>: ` in the Status message.
 */

export function required(field: string, detail?: string): FieldCause {
  const message = detail === undefined ? "Required value" : `Required value: ${detail}`;
  return { reason: "FieldValueRequired", field, message };
}

export function invalid(field: string, value: unknown, detail: string): FieldCause {
  return {
    reason: "FieldValueInvalid",
    field,
    message: `Invalid value: ${formatFieldValue(value)}: ${detail}`,
  };
}

/** A type or format mismatch: Kubernetes shows the value's JSON type name (or the bad string). */
export function typeInvalid(field: string, shown: string, detail: string): FieldCause {
  return {
    reason: "FieldValueTypeInvalid",
    field,
    message: `Invalid value: ${formatFieldValue(shown)}: ${detail}`,
  };
}

export function notSupported(
  field: string,
  value: unknown,
  allowed: readonly unknown[],
): FieldCause {
  // Non-string enum members are written as JSON first, then quoted like the strings.
  const quoted = allowed.map((member) =>
    JSON.stringify(typeof member === "string" ? member : JSON.stringify(member)),
  );
  return {
    reason: "FieldValueNotSupported",
    field,
    message: `Unsupported value: ${formatFieldValue(value)}: supported values: ${quoted.join(", ")}`,
  };
}

export function tooLong(field: string, max: number): FieldCause {
  return {
    reason: "FieldValueTooLong",
    field,
    message: `Too long: may not be more than ${max} bytes`,
  };
}

export function forbidden(field: string, detail: string): FieldCause {
  return { reason: "FieldValueForbidden", field, message: `Forbidden: ${detail}` };
}

export function duplicate(field: string, value: unknown): FieldCause {
  return {
    reason: "FieldValueDuplicate",
    field,
    message: `Duplicate value: ${formatFieldValue(value)}`,
  };
}

/**
 * Causes that stop CEL rules from running, as the API server decides it: a rule could not
 * trust the shape of `self` (type, required, enum and length failures).
 */
export function isBlocking(cause: FieldCause): boolean {
  switch (cause.reason) {
    case "FieldValueNotSupported":
    case "FieldValueRequired":
    case "FieldValueTooLong":
    case "FieldValueTypeInvalid":
      return true;
    case "FieldValueInvalid":
    case "FieldValueForbidden":
    case "FieldValueDuplicate":
      return false;
  }
}

/**
 * The cause Kubernetes adds (with field `<nil>`) when a blocking error kept CEL rules from
 * running; its bad value is nil, which Kubernetes prints as the quoted string "null".
 */
export const RULES_NOT_CHECKED: FieldCause = {
  reason: "FieldValueInvalid",
  field: "<nil>",
  message:
    'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};
