import type { JsonRecord } from "./json.ts";
import { childPath, cloneJson, indexPath, isRecord } from "./json.ts";
import type { Structural } from "./structural.ts";

/** Fields every resource (and every embedded resource) may carry whatever its schema says. */
const META_FIELDS = new Set(["apiVersion", "kind", "metadata"]);

/**
 * Returns a copy of `value` without the fields its structural schema does not declare, and
 * appends each dropped field's path to `pruned` (`spec.replicas`, `spec.x[0].y`), the way the
 * API server's pruning reports them for its `unknown field` warnings and Strict errors.
 *
 * At the resource root `apiVersion`, `kind` and `metadata` are left alone: the server owns
 * metadata (it keeps only ObjectMeta's fields). Embedded resources keep the same three.
 */
export function pruneUnknownFields(
  value: unknown,
  schema: Structural,
  pruned: string[],
): JsonRecord {
  const result = pruneNode(value, schema, { path: "", pruned, root: true });
  return isRecord(result) ? result : {};
}

interface PruneContext {
  path: string;
  pruned: string[];
  root: boolean;
}

function pruneNode(value: unknown, schema: Structural | undefined, ctx: PruneContext): unknown {
  if (schema === undefined) return cloneJson(value);
  if (Array.isArray(value)) {
    const items = schema.items;
    return value.map((item, index) =>
      pruneNode(item, items, { ...ctx, path: indexPath(ctx.path, index), root: false }),
    );
  }
  if (!isRecord(value)) return value;
  const out: JsonRecord = {};
  for (const [key, child] of Object.entries(value)) {
    const path = childPath(ctx.path, key);
    if ((ctx.root || schema.embeddedResource) && META_FIELDS.has(key)) {
      out[key] = cloneJson(child);
      continue;
    }
    const next = { ...ctx, path, root: false };
    const property = schema.properties.get(key);
    if (property !== undefined) {
      out[key] = pruneNode(child, property, next);
    } else if (schema.additionalProperties === true) {
      out[key] = cloneJson(child);
    } else if (schema.additionalProperties !== undefined) {
      out[key] = pruneNode(child, schema.additionalProperties, next);
    } else if (schema.preserveUnknownFields) {
      // Unknown fields are kept, and so is everything below them: there is no schema to prune by.
      out[key] = cloneJson(child);
    } else {
      ctx.pruned.push(path);
    }
  }
  return out;
}
