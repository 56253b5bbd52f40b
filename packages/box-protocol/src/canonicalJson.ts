/**
 * The canonical JSON serializer: the one place that decides the bytes Berth hashes, so that
 * boxd, the Kubernetes backend and any verifier compute the same revision for the same data.
 *
 * Rules: object keys sorted by UTF-16 code unit at every depth (JavaScript's default string
 * order, spelled out so no locale ever creeps in); object members whose value is `undefined`
 * dropped; arrays kept in order, with `undefined` items written as `null` (as JSON.stringify
 * does, so positions never shift); strings and numbers as JSON.stringify writes them; no
 * whitespace. Anything JSON cannot carry exactly (non-finite numbers, bigints, functions,
 * symbols, non-plain objects such as Date or Map) is refused rather than silently coerced.
 */

import { createHash } from "node:crypto";

/** A value canonicalJson can serialize. */
export type CanonicalJsonValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly CanonicalJsonValue[]
  | { readonly [key: string]: CanonicalJsonValue };

/** The value holds something canonical JSON cannot represent exactly. */
export class CanonicalJsonError extends Error {
  override readonly name = "CanonicalJsonError";
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`canonical JSON: ${path || "(root)"} ${reason}`);
  }
}

/** Orders strings by UTF-16 code unit, never by locale. */
export function compareUtf16(left: string, right: string): number {
  if (left < right) return -1;
  return left > right ? 1 : 0;
}

export function canonicalJson(value: CanonicalJsonValue): string {
  const text = serializeValue(value);
  if (text === undefined) throw new CanonicalJsonError("", "is undefined");
  return text;
}

/**
 * `sha256:<64 lowercase hex>` over the canonical JSON of `value` (UTF-8): the one fingerprint
 * form for anything Berth compares by content rather than by identity — the Kubernetes
 * backend's pod-template hash and execution-profile fingerprint — so two replicas computing it
 * over the same content agree whatever order their objects were built in.
 */
export function canonicalFingerprint(value: CanonicalJsonValue): string {
  return `sha256:${createHash("sha256").update(canonicalJson(value), "utf8").digest("hex")}`;
}

function serializeValue(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new CanonicalJsonError("", `is ${String(value)}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    let text = "[";
    for (let index = 0; index < value.length; index += 1) {
      const item = within(value[index], index);
      text += `${index === 0 ? "" : ","}${item ?? "null"}`;
    }
    return `${text}]`;
  }
  if (typeof value === "object" && isPlainObject(value)) {
    const record = value as Record<string, unknown>;
    let text = "{";
    // sort() without a comparator orders strings by UTF-16 code unit, as compareUtf16 does.
    for (const key of Object.keys(record).sort()) {
      const member = within(record[key], key);
      if (member === undefined) continue;
      text += `${text === "{" ? "" : ","}${JSON.stringify(key)}:${member}`;
    }
    return `${text}}`;
  }
  throw new CanonicalJsonError("", `is a ${describe(value)}, not a JSON value`);
}

/**
 * Serializes a member (`step`: its key or index); a refusal below it gains the step (`.key` or
 * `[index]`) as it travels up. Paths are built only for a refusal: a manifest is tens of
 * thousands of small objects, and naming every member's path in advance cost more than
 * serializing it.
 */
function within(value: unknown, step: string | number): string | undefined {
  if (typeof value === "string") return JSON.stringify(value);
  try {
    return serializeValue(value);
  } catch (error) {
    if (error instanceof CanonicalJsonError) {
      const name = typeof step === "number" ? `[${String(step)}]` : `.${step}`;
      throw new CanonicalJsonError(`${name}${error.path}`, error.reason);
    }
    throw error;
  }
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function describe(value: unknown): string {
  if (typeof value === "object" && value !== null) return value.constructor.name;
  return typeof value;
}
