/** The untyped object model: Kubernetes objects as parsed JSON, with typed views of metadata. */

export type KubeObject = Record<string, unknown>;

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The metadata fields the server reads or writes; anything else is carried along untouched. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  [key: string]: unknown;
}

export function isObject(value: unknown): value is KubeObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object's metadata, created empty if absent; callers validate shapes before trusting fields. */
export function meta(object: KubeObject): ObjectMeta {
  if (!isObject(object.metadata)) object.metadata = {};
  return object.metadata as ObjectMeta;
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Structural equality of JSON values; key order does not matter (the no-op rule compares content). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a).filter((key) => a[key] !== undefined);
    const otherKeys = Object.keys(b).filter((key) => b[key] !== undefined);
    return keys.length === otherKeys.length && keys.every((key) => jsonEqual(a[key], b[key]));
  }
  return false;
}

/** The object without `metadata` (and without `status` when it lives in a subresource). */
export function content(object: KubeObject, withoutStatus: boolean): KubeObject {
  const rest: KubeObject = {};
  for (const [key, value] of Object.entries(object)) {
    if (key === "metadata" || key === "kind" || key === "apiVersion") continue;
    if (withoutStatus && key === "status") continue;
    rest[key] = value;
  }
  return rest;
}

/** A string at a dotted path, for field selectors; other value types are stringified like Go does. */
export function fieldAt(object: KubeObject, path: string): string | undefined {
  let current: unknown = object;
  for (const part of path.split(".")) {
    if (!isObject(current)) return undefined;
    current = current[part];
  }
  if (typeof current === "string") return current;
  if (typeof current === "number" || typeof current === "boolean") return String(current);
  return undefined;
}
