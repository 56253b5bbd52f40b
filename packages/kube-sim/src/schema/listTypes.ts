import { duplicate, invalid, required } from "./causes.ts";
import { childPath, indexPath, isRecord, jsonEqual } from "./json.ts";
import type { Structural } from "./structural.ts";
import type { FieldCause } from "./types.ts";

/**
 * The checks Kubernetes runs after OpenAPI validation: `x-kubernetes-list-type: set` items and
 * `map` keys must be unique, and embedded resources need `apiVersion` and `kind`.
 */
export function validateListsAndEmbedded(value: unknown, schema: Structural): FieldCause[] {
  const causes: FieldCause[] = [];
  walk(value, schema, { path: "", causes });
  return causes;
}

function mapKey(item: unknown, keys: readonly string[]): Record<string, unknown> | undefined {
  if (!isRecord(item)) return undefined;
  const key: Record<string, unknown> = {};
  for (const name of keys) if (name in item) key[name] = item[name];
  return key;
}

interface Site {
  path: string;
  causes: FieldCause[];
}

function checkUnique(list: unknown[], schema: Structural, { path, causes }: Site) {
  const seen: unknown[] = [];
  list.forEach((item, index) => {
    const identity = schema.listType === "map" ? mapKey(item, schema.listMapKeys) : item;
    if (identity === undefined) return;
    if (seen.some((earlier) => jsonEqual(earlier, identity))) {
      causes.push(duplicate(indexPath(path, index), identity));
    } else {
      seen.push(identity);
    }
  });
}

function checkEmbedded(object: Record<string, unknown>, path: string, causes: FieldCause[]) {
  for (const key of ["apiVersion", "kind"]) {
    const field = childPath(path, key);
    const value = object[key];
    if (!(key in object)) causes.push(required(field, "must not be empty"));
    else if (typeof value !== "string") causes.push(invalid(field, value, "must be a string"));
    else if (value === "") causes.push(invalid(field, value, "must not be empty"));
  }
}

function walk(value: unknown, schema: Structural, { path, causes }: Site): void {
  if (Array.isArray(value)) {
    if (schema.listType === "set" || schema.listType === "map") {
      checkUnique(value, schema, { path, causes });
    }
    const items = schema.items;
    if (items !== undefined)
      value.forEach((item, i) => walk(item, items, { path: indexPath(path, i), causes }));
    return;
  }
  if (!isRecord(value)) return;
  if (schema.embeddedResource) checkEmbedded(value, path, causes);
  for (const [key, child] of Object.entries(value)) {
    const next = schema.properties.get(key) ?? schema.additionalProperties;
    if (next !== undefined && next !== true)
      walk(child, next, { path: childPath(path, key), causes });
  }
}
