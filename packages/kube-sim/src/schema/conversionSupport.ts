import type { JsonRecord } from "./json.ts";
import { cloneJson, isRecord } from "./json.ts";

/**
 * Shared steps of the agent-sandbox conversions (v1alpha1 ↔ the v1beta1 hub). Each converter
 * works on its own deep copy, so these helpers may mutate what they are given.
 */

/** A conversion that the upstream webhook would refuse. */
export class ConversionError extends Error {
  override readonly name = "ConversionError";
  constructor(
    readonly kind: string,
    detail: string,
  ) {
    super(`${kind} conversion: ${detail}`);
  }
}

/** The object's `key` field as an object, created when missing or not an object. */
export function section(object: JsonRecord, key: string): JsonRecord {
  const existing = object[key];
  if (isRecord(existing)) return existing;
  const created: JsonRecord = {};
  object[key] = created;
  return created;
}

function annotationsOf(object: JsonRecord): JsonRecord | undefined {
  const metadata = object.metadata;
  const annotations = isRecord(metadata) ? metadata.annotations : undefined;
  return isRecord(annotations) ? annotations : undefined;
}

/** Reads an annotation's value. */
export function annotation(object: JsonRecord, key: string): string | undefined {
  const value = annotationsOf(object)?.[key];
  return typeof value === "string" ? value : undefined;
}

/** Sets an annotation, creating `metadata.annotations` if needed. */
export function setAnnotation(object: JsonRecord, key: string, value: string): void {
  section(section(object, "metadata"), "annotations")[key] = value;
}

/** Removes an annotation; an emptied map goes too, as Go's `omitempty` drops it. */
export function removeAnnotation(object: JsonRecord, key: string): void {
  const annotations = annotationsOf(object);
  if (annotations === undefined) return;
  // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- annotation keys are data
  delete annotations[key];
  if (Object.keys(annotations).length === 0) delete section(object, "metadata").annotations;
}

/**
 * Upstream keeps the whole v1alpha1 object (less this annotation) as JSON in an annotation on
 * the hub, so that a later conversion back can restore what v1beta1 cannot express.
 */
export function recordAlphaState(hub: JsonRecord, alpha: JsonRecord, key: string): void {
  const state = cloneJson(alpha);
  removeAnnotation(state, key);
  setAnnotation(hub, key, JSON.stringify(state));
}

/** Removes the state annotation and returns the v1alpha1 object it held, if any. */
export function takeAlphaState(
  alpha: JsonRecord,
  key: string,
  kind: string,
): JsonRecord | undefined {
  const text = annotation(alpha, key);
  if (text === undefined) return undefined;
  removeAnnotation(alpha, key);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConversionError(kind, `annotation ${key} is not JSON: ${String(error)}`);
  }
  if (!isRecord(parsed)) throw new ConversionError(kind, `annotation ${key} is not an object`);
  return parsed;
}

/** `object.a.b...` if every step is an object, else undefined. */
export function dig(object: unknown, ...keys: string[]): unknown {
  let current = object;
  for (const key of keys) current = isRecord(current) ? current[key] : undefined;
  return current;
}
