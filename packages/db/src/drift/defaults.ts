import type { DefaultValue, ExpectedDefault, ValueFamily } from "./shapes.ts";

// Both sides are reduced to a DefaultValue: Postgres re-prints what a migration wrote
// (`DEFAULT 0` → `0`, `DEFAULT ''` → `''::text`, `now()` may read `CURRENT_TIMESTAMP`), so
// comparing texts would flag every hand-written migration that spells a default differently.

const NOW = /^(?:current_timestamp(?:\(\d+\))?|now\(\)|transaction_timestamp\(\))$/i;
const NUMBER = /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i;
/** A cast: `::text`, `::character varying(10)`, `::timestamp(3) with time zone`, `::"Role"[]`. */
const CAST =
  /^::(?:(?:"[^"]*"|\w+)\.)?(?:"[^"]*"|\w+)(?:\(\d+(?:,\s*\d+)?\))?(?:\s+(?:varying|precision|without|with|time|zone)\b)*(?:\(\d+\))?(?:\s+(?:without|with|time|zone)\b)*(?:\[\])*/i;

/** Reads a default as `pg_get_expr` (or `dbgenerated("…")`) writes it; null for `NULL`. */
export function parseDefault(expression: string): DefaultValue | null {
  const text = stripParens(stripCasts(expression.trim()).trim());
  if (/^null$/i.test(text)) return null;
  if (/^nextval\(/i.test(text)) return { kind: "expression", text: "autoincrement()" };
  if (NOW.test(text)) return { kind: "expression", text: "now()" };
  if (NUMBER.test(text)) return { kind: "literal", value: text };
  if (/^(?:true|false)$/i.test(text)) return { kind: "literal", value: text.toLowerCase() };
  if (text.startsWith("'") && literalEnd(text, 0) === text.length) {
    return { kind: "literal", value: text.slice(1, -1).replaceAll("''", "'") };
  }
  const array = /^array\[(.*)\]$/is.exec(text);
  if (array !== null) {
    const body = (array[1] ?? "").trim();
    const values = (body === "" ? [] : splitTopLevel(body)).map((element) => {
      const value = parseDefault(element);
      if (value === null) return "NULL";
      return value.kind === "literal" ? value.value : (describeDefault(value, "text") ?? "NULL");
    });
    return { kind: "list", values };
  }
  return { kind: "expression", text: text.replace(/\s+/g, " ") };
}

/** A Prisma field's default, as DMMF gives it. */
export interface SchemaDefaultInput {
  readonly kind: string;
  readonly type: string;
  readonly default?: unknown;
}

/**
 * The database default a field's `@default` produces. `enumValues` maps an enum's value names
 * to their database names (`@map`). Client-side generators (uuid(), cuid()…) produce none.
 */
export function schemaDefault(
  field: SchemaDefaultInput,
  enumValues: ReadonlyMap<string, ReadonlyMap<string, string>>,
): ExpectedDefault {
  const value = field.default;
  const literal = (raw: string | number | boolean): string => {
    if (field.kind === "enum") return enumValues.get(field.type)?.get(String(raw)) ?? String(raw);
    if (field.type === "Bytes") return `\\x${Buffer.from(String(raw), "base64").toString("hex")}`;
    return String(raw);
  };
  if (value === undefined || value === null) return null;
  if (Array.isArray(value))
    return {
      kind: "list",
      values: value.map((item: unknown) => literal(item as string | number | boolean)),
    };
  if (typeof value !== "object")
    return { kind: "literal", value: literal(value as string | number | boolean) };
  const { name, args } = value as { name: string; args: readonly (string | number)[] };
  switch (name) {
    case "autoincrement":
    case "sequence":
      return { kind: "expression", text: "autoincrement()" };
    case "now":
      return { kind: "expression", text: "now()" };
    case "dbgenerated":
      return typeof args[0] === "string" ? parseDefault(args[0]) : { kind: "dbGenerated" };
    case "uuid":
    case "cuid":
    case "nanoid":
    case "ulid":
      return null;
    default:
      return { kind: "expression", text: `${name}(${args.join(", ")})` };
  }
}

export interface DefaultColumn {
  readonly family: ValueFamily;
  readonly isList: boolean;
}

export function defaultsMatch(
  expected: ExpectedDefault,
  actual: DefaultValue | null,
  column: DefaultColumn,
): boolean {
  if (expected === null || actual === null) return expected === actual;
  if (expected.kind === "dbGenerated") return true;
  if (expected.kind === "list") {
    const values = actual.kind === "list" ? actual.values : arrayLiteral(actual);
    return (
      values !== null &&
      values.length === expected.values.length &&
      values.every((value, i) => valuesEqual(expected.values[i] ?? "", value, column.family))
    );
  }
  if (expected.kind === "literal") {
    return actual.kind === "literal" && valuesEqual(expected.value, actual.value, column.family);
  }
  return actual.kind === "expression" && actual.text === expected.text;
}

/** How a default reads in a message: numbers bare, strings quoted, expressions as written. */
export function describeDefault(value: ExpectedDefault, family: ValueFamily): string | null {
  if (value === null) return null;
  switch (value.kind) {
    case "dbGenerated":
      return "dbgenerated()";
    case "expression":
      return value.text;
    case "list":
      return `[${value.values.join(", ")}]`;
    case "literal":
      return family === "number" || family === "boolean"
        ? value.value
        : JSON.stringify(value.value);
    default:
      return unreachable(value);
  }
}

function valuesEqual(expected: string, actual: string, family: ValueFamily): boolean {
  if (expected === actual) return true;
  switch (family) {
    case "number":
      return NUMBER.test(expected) && NUMBER.test(actual) && Number(expected) === Number(actual);
    case "json":
      return (
        canonicalJson(expected) !== undefined && canonicalJson(expected) === canonicalJson(actual)
      );
    case "datetime":
      return !Number.isNaN(epoch(expected)) && epoch(expected) === epoch(actual);
    case "bytes":
      return expected.toLowerCase() === actual.toLowerCase();
    case "text":
    case "boolean":
      return false;
    default:
      return unreachable(family);
  }
}

/** `'{a,"b c"}'` as Postgres prints an array constant; null when it is not one. */
function arrayLiteral(value: DefaultValue): readonly string[] | null {
  if (value.kind !== "literal" || !/^\{.*\}$/s.test(value.value)) return null;
  const body = value.value.slice(1, -1);
  if (body === "") return [];
  return splitTopLevel(body).map((item) => item.replace(/^"(.*)"$/s, "$1").replaceAll('\\"', '"'));
}

function canonicalJson(text: string): string | undefined {
  const sort = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sort);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, sort(v)]),
    );
  };
  try {
    return JSON.stringify(sort(JSON.parse(text)));
  } catch {
    return undefined;
  }
}

/** Milliseconds of a timestamp in Prisma's ISO form or Postgres's `2020-01-01 00:00:00+00`. */
function epoch(text: string): number {
  let iso = text.trim().replace(" ", "T");
  if (/[+-]\d\d$/.test(iso)) iso += ":00";
  if (!/(?:z|[+-]\d\d:\d\d)$/i.test(iso)) iso += "Z";
  return Date.parse(iso);
}

function stripCasts(sql: string): string {
  let out = "";
  let i = 0;
  while (i < sql.length) {
    if (sql[i] === "'") {
      const end = literalEnd(sql, i);
      out += sql.slice(i, end);
      i = end;
      continue;
    }
    const cast = sql.startsWith("::", i) ? CAST.exec(sql.slice(i)) : null;
    if (cast !== null) {
      i += cast[0].length;
      continue;
    }
    out += sql.charAt(i);
    i += 1;
  }
  return out;
}

/** Index just past the quoted literal starting at `start` (`''` is an escaped quote). */
function literalEnd(sql: string, start: number): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === "'") {
      if (sql[i + 1] !== "'") return i + 1;
      i += 1;
    }
    i += 1;
  }
  return sql.length;
}

function stripParens(text: string): string {
  let current = text;
  while (
    current.startsWith("(") &&
    current.endsWith(")") &&
    splitTopLevel(current.slice(1, -1), "").length === 1
  ) {
    current = current.slice(1, -1).trim();
  }
  return current;
}

/** Splits on `separator` outside quotes and brackets; with "" it checks balance only. */
function splitTopLevel(text: string, separator = ","): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i] ?? "";
    if (quote !== null) {
      if (ch === quote) quote = null;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "(" || ch === "[" || ch === "{") depth += 1;
    else if (ch === ")" || ch === "]" || ch === "}") depth -= 1;
    if (depth < 0) return [];
    if (ch === separator && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (depth !== 0) return [];
  parts.push(text.slice(start).trim());
  return parts;
}

function unreachable(value: never): never {
  throw new Error(`unhandled value ${JSON.stringify(value)}`);
}
