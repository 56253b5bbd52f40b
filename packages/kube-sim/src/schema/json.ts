/** Small helpers over JSON values as `JSON.parse` produces them. */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A deep copy of a JSON value; the schema layer never hands out or keeps its callers' objects. */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}

/** JSON equality: key order does not matter, array order does. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => key in b && jsonEqual(a[key], b[key]))
    );
  }
  return false;
}

/** The JSON type name Kubernetes' validator reports for a value ("integer" for whole numbers). */
export function jsonTypeOf(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  // string, boolean and object name themselves; nothing else comes out of JSON.parse.
  return typeof value;
}

/** `parent.key`, or `key` at the root: how Kubernetes prints a field path. */
export function childPath(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

/** `parent[i]`: how Kubernetes prints a list item's path. */
export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

/** A JSON object with its keys sorted, as Go's encoding/json writes maps. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (isRecord(value)) {
    const body = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${sortedJson(value[key])}`);
    return `{${body.join(",")}}`;
  }
  // JSON.stringify is typed as string but yields undefined for undefined.
  const text = JSON.stringify(value) as string | undefined;
  return text ?? "null";
}

/**
 * A value as Kubernetes' field errors print it after `Invalid value: `: strings quoted, numbers
 * and booleans bare, null as `null`, objects and lists as JSON. (Go quotes strings with %q; for
 * the ASCII values CRDs carry that is the same as a JSON string.)
 */
export function formatFieldValue(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return sortedJson(value);
}
