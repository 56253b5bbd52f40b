import { cloneJson, isRecord } from "./json.ts";
import type { Structural } from "./structural.ts";

function isNonNullableNull(value: unknown, schema: Structural): boolean {
  return value === null && !schema.nullable;
}

/**
 * Structural defaulting, in place, as the API server does it after pruning: a `null` in a field
 * that is not nullable is dropped, or replaced by the field's default when it has one; an absent
 * field with a default gets a copy of it. Defaults apply only inside objects that are present
 * (a default under `spec.lifecycle` does nothing while `lifecycle` is absent), and a default
 * that is itself an object is defaulted in turn.
 */
export function applyDefaultsInPlace(value: unknown, schema: Structural): void {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items === undefined) return;
    value.forEach((item, index) => {
      if (isNonNullableNull(item, items) && items.default !== undefined) {
        value[index] = cloneJson(items.default.value);
      }
      applyDefaultsInPlace(value[index], items);
    });
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, property] of schema.properties) {
    const present = key in value;
    const child = value[key];
    if (present && isNonNullableNull(child, property) && property.default === undefined) {
      // Kubernetes prunes such nulls before defaulting, silently: they are not unknown fields.
      // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- keys come from the schema
      delete value[key];
    } else if (property.default !== undefined && (!present || isNonNullableNull(child, property))) {
      value[key] = cloneJson(property.default.value);
    }
  }
  for (const [key, child] of Object.entries(value)) {
    const property = schema.properties.get(key);
    if (property !== undefined) {
      applyDefaultsInPlace(child, property);
      continue;
    }
    const additional = schema.additionalProperties;
    if (additional === undefined || additional === true) continue;
    if (isNonNullableNull(child, additional) && additional.default !== undefined) {
      value[key] = cloneJson(additional.default.value);
    }
    applyDefaultsInPlace(value[key], additional);
  }
}
