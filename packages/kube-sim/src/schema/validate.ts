import { invalid, notSupported, required, tooLong, typeInvalid } from "./causes.ts";
import { matchesFormat } from "./formats.ts";
import { childPath, indexPath, isRecord, jsonEqual, jsonTypeOf } from "./json.ts";
import type { Structural } from "./structural.ts";
import type { FieldCause } from "./types.ts";

/**
 * OpenAPI v3 validation of a pruned, defaulted object, producing Kubernetes' field causes in
 * the order its validator emits them for one node: type, string checks, format, enum, list
 * items, number bounds, then required fields and properties.
 *
 * Like Kubernetes, a type mismatch does not stop the other checks that apply to the value as
 * it is (a string where an integer belongs still meets the enum check).
 */
export function validateAgainstSchema(value: unknown, schema: Structural): FieldCause[] {
  const causes: FieldCause[] = [];
  validateNode(value, schema, { path: "", causes });
  return causes;
}

/** Where a check runs: the field path and the list its causes go to. */
interface Site {
  path: string;
  causes: FieldCause[];
}

function inBody(path: string): string {
  return `${path} in body`;
}

function checkType(value: unknown, schema: Structural, at: Site): void {
  const { path, causes } = at;
  const actual = jsonTypeOf(value);
  const allowed = schema.intOrString
    ? ["integer", "string"]
    : schema.type === undefined
      ? []
      : [schema.type];
  if (allowed.length === 0) return;
  const ok = allowed.includes(actual) || (actual === "integer" && allowed.includes("number"));
  if (!ok) {
    causes.push(
      typeInvalid(
        path,
        actual,
        `${inBody(path)} must be of type ${allowed.join(",")}: "${actual}"`,
      ),
    );
  }
}

/**
 * `anyOf`: the value must pass one branch. When none does, Kubernetes reports a fieldless note
 * and then the failures of the branch that came closest (with type-only branches: the first).
 */
function checkAnyOf(value: unknown, schema: Structural, at: Site): void {
  const { path, causes } = at;
  if (schema.anyOf.length === 0) return;
  let closest: FieldCause[] | undefined;
  for (const branch of schema.anyOf) {
    const branchCauses: FieldCause[] = [];
    validateNode(value, branch, { path, causes: branchCauses });
    if (branchCauses.length === 0) return;
    closest ??= branchCauses;
  }
  causes.push(invalid("<nil>", "", `"${path}" must validate at least one schema (anyOf)`));
  causes.push(...(closest ?? []));
}

function checkString(text: string, schema: Structural, at: Site): void {
  const { path, causes } = at;
  // OpenAPI lengths count code points (Go runes), not UTF-16 units or grapheme clusters.
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- code points are what we want
  const length = [...text].length;
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    causes.push(tooLong(path, schema.maxLength));
  }
  if (schema.minLength !== undefined && length < schema.minLength) {
    causes.push(
      invalid(path, text, `${inBody(path)} should be at least ${schema.minLength} chars long`),
    );
  }
  if (schema.pattern !== undefined && !schema.pattern.regex.test(text)) {
    causes.push(invalid(path, text, `${inBody(path)} should match '${schema.pattern.source}'`));
  }
  if (schema.format !== undefined && !matchesFormat(schema.format, text)) {
    causes.push(
      typeInvalid(
        path,
        text,
        `${inBody(path)} must be of type ${schema.format}: ${JSON.stringify(text)}`,
      ),
    );
  }
}

function checkNumber(value: number, schema: Structural, at: Site): void {
  const { path, causes } = at;
  const { minimum, maximum } = schema;
  if (minimum !== undefined) {
    const below = schema.exclusiveMinimum ? value <= minimum : value < minimum;
    const relation = schema.exclusiveMinimum ? "greater than" : "greater than or equal to";
    if (below)
      causes.push(invalid(path, value, `${inBody(path)} should be ${relation} ${minimum}`));
  }
  if (maximum !== undefined) {
    const above = schema.exclusiveMaximum ? value >= maximum : value > maximum;
    const relation = schema.exclusiveMaximum ? "less than" : "less than or equal to";
    if (above)
      causes.push(invalid(path, value, `${inBody(path)} should be ${relation} ${maximum}`));
  }
}

function checkList(list: unknown[], schema: Structural, at: Site): void {
  const { path, causes } = at;
  if (schema.minItems !== undefined && list.length < schema.minItems) {
    causes.push(
      invalid(path, list.length, `${inBody(path)} should have at least ${schema.minItems} items`),
    );
  }
  const items = schema.items;
  if (items === undefined) return;
  list.forEach((item, index) => {
    validateNode(item, items, { path: indexPath(path, index), causes });
  });
}

function checkObject(object: Record<string, unknown>, schema: Structural, at: Site): void {
  const { path, causes } = at;
  for (const key of schema.required) {
    if (!(key in object)) causes.push(required(childPath(path, key)));
  }
  for (const [key, child] of Object.entries(object)) {
    const property = schema.properties.get(key);
    const next = property ?? schema.additionalProperties;
    if (next !== undefined && next !== true)
      validateNode(child, next, { path: childPath(path, key), causes });
  }
}

function validateNode(value: unknown, schema: Structural, at: Site): void {
  const { path, causes } = at;
  if (value === null && schema.nullable) return;
  checkType(value, schema, at);
  checkAnyOf(value, schema, at);
  if (typeof value === "string") checkString(value, schema, at);
  if (schema.enum !== undefined && !schema.enum.some((member) => jsonEqual(member, value))) {
    causes.push(notSupported(path, value, schema.enum));
  }
  if (Array.isArray(value)) checkList(value, schema, at);
  if (typeof value === "number") checkNumber(value, schema, at);
  if (isRecord(value)) checkObject(value, schema, at);
}
