/**
 * The parts of a CRD's `openAPIV3Schema` that the API server acts on, read once into a typed
 * tree. CRD schemas must be structural (every node typed, no $ref), which is what makes this
 * simple tree enough: anyOf only adds value checks (int-or-string), it never changes the shape.
 */

/** The JSON types a structural schema node may declare. */
export type SchemaType = "object" | "array" | "string" | "integer" | "number" | "boolean";

/** One `x-kubernetes-validations` entry. */
export interface ValidationRule {
  rule: string;
  message: string | undefined;
  messageExpression: string | undefined;
  reason: string | undefined;
  fieldPath: string | undefined;
}

/** A node of a structural schema. */
export interface Structural {
  type: SchemaType | undefined;
  properties: ReadonlyMap<string, Structural>;
  /** A schema for map values, `true` to keep any value, or undefined (unknown keys are pruned). */
  additionalProperties: Structural | true | undefined;
  items: Structural | undefined;
  /** Value-only alternatives (int-or-string's `integer` | `string`); they never add fields. */
  anyOf: readonly Structural[];
  required: readonly string[];
  enum: readonly unknown[] | undefined;
  format: string | undefined;
  minimum: number | undefined;
  maximum: number | undefined;
  exclusiveMinimum: boolean;
  exclusiveMaximum: boolean;
  minLength: number | undefined;
  maxLength: number | undefined;
  pattern: { source: string; regex: RegExp } | undefined;
  minItems: number | undefined;
  nullable: boolean;
  /** `{ value }` when the node has a default, so that a default of `null` or `false` counts. */
  default: { value: unknown } | undefined;
  intOrString: boolean;
  preserveUnknownFields: boolean;
  embeddedResource: boolean;
  listType: "atomic" | "set" | "map" | undefined;
  listMapKeys: readonly string[];
  validations: readonly ValidationRule[];
}

/** The schema text was not a structural schema this reader understands. */
export class SchemaReadError extends Error {
  override readonly name = "SchemaReadError";
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path || "<root>"}: ${detail}`);
  }
}

type Raw = Record<string, unknown>;

function isRecord(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const SCHEMA_TYPES: readonly SchemaType[] = [
  "object",
  "array",
  "string",
  "integer",
  "number",
  "boolean",
];

function readType(raw: Raw, path: string): SchemaType | undefined {
  const type = raw.type;
  if (type === undefined) return undefined;
  const known = SCHEMA_TYPES.find((t) => t === type);
  if (known === undefined)
    throw new SchemaReadError(path, `unsupported type ${JSON.stringify(type)}`);
  return known;
}

function optionalNumber(raw: Raw, key: string): number | undefined {
  const value = raw[key];
  return typeof value === "number" ? value : undefined;
}

function optionalString(raw: Raw, key: string): string | undefined {
  const value = raw[key];
  return typeof value === "string" ? value : undefined;
}

function readListType(raw: Raw): Structural["listType"] {
  const value = raw["x-kubernetes-list-type"];
  return value === "atomic" || value === "set" || value === "map" ? value : undefined;
}

function readRules(raw: Raw, path: string): ValidationRule[] {
  const list = raw["x-kubernetes-validations"];
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new SchemaReadError(path, "x-kubernetes-validations is no list");
  return list.map((entry, index) => {
    if (!isRecord(entry) || typeof entry.rule !== "string") {
      throw new SchemaReadError(path, `x-kubernetes-validations[${index}] has no rule`);
    }
    return {
      rule: entry.rule,
      message: optionalString(entry, "message"),
      messageExpression: optionalString(entry, "messageExpression"),
      reason: optionalString(entry, "reason"),
      fieldPath: optionalString(entry, "fieldPath"),
    };
  });
}

// Go's RE2 and JavaScript agree on the simple patterns CRDs use; a pattern JavaScript cannot
// compile is reported at load time rather than silently skipped.
function readPattern(raw: Raw, path: string): Structural["pattern"] {
  const source = optionalString(raw, "pattern");
  if (source === undefined) return undefined;
  try {
    return { source, regex: new RegExp(source) };
  } catch (error) {
    throw new SchemaReadError(path, `pattern ${source} does not compile: ${String(error)}`);
  }
}

/** Reads one `openAPIV3Schema` (or any node of it) into a {@link Structural} tree. */
export function readStructural(raw: unknown, path = ""): Structural {
  if (!isRecord(raw)) throw new SchemaReadError(path, "schema node is not an object");
  const properties = new Map<string, Structural>();
  const rawProperties = raw.properties;
  if (isRecord(rawProperties)) {
    for (const [key, child] of Object.entries(rawProperties)) {
      properties.set(key, readStructural(child, path ? `${path}.${key}` : key));
    }
  }
  const rawAdditional = raw.additionalProperties;
  const additionalProperties =
    rawAdditional === true
      ? true
      : isRecord(rawAdditional)
        ? readStructural(rawAdditional, `${path}[*]`)
        : undefined;
  const rawRequired = raw.required;
  const rawEnum = raw.enum;
  const rawKeys = raw["x-kubernetes-list-map-keys"];
  const rawAnyOf = raw.anyOf;
  return {
    type: readType(raw, path),
    properties,
    additionalProperties,
    items: raw.items === undefined ? undefined : readStructural(raw.items, `${path}[*]`),
    anyOf: Array.isArray(rawAnyOf) ? rawAnyOf.map((branch) => readStructural(branch, path)) : [],
    required: Array.isArray(rawRequired) ? rawRequired.map(String) : [],
    enum: Array.isArray(rawEnum) ? rawEnum : undefined,
    format: optionalString(raw, "format"),
    minimum: optionalNumber(raw, "minimum"),
    maximum: optionalNumber(raw, "maximum"),
    exclusiveMinimum: raw.exclusiveMinimum === true,
    exclusiveMaximum: raw.exclusiveMaximum === true,
    minLength: optionalNumber(raw, "minLength"),
    maxLength: optionalNumber(raw, "maxLength"),
    pattern: readPattern(raw, path),
    minItems: optionalNumber(raw, "minItems"),
    nullable: raw.nullable === true,
    default: "default" in raw ? { value: raw.default } : undefined,
    intOrString: raw["x-kubernetes-int-or-string"] === true,
    preserveUnknownFields: raw["x-kubernetes-preserve-unknown-fields"] === true,
    embeddedResource: raw["x-kubernetes-embedded-resource"] === true,
    listType: readListType(raw),
    listMapKeys: Array.isArray(rawKeys) ? rawKeys.map(String) : [],
    validations: readRules(raw, path),
  };
}
