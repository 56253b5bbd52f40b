import type { ValueFamily } from "./shapes.ts";

// Prisma's Postgres types, spelled as `format_type()` prints them so the catalog's text can be
// compared as is. Identifier quotes are dropped on both sides (`"Role"` prints quoted).

type NativeRenderer = (args: readonly string[]) => string;

const precision = (args: readonly string[]): string =>
  args[0] === undefined ? "" : `(${args[0]})`;

/** `@db.X(args)` → the type Prisma's migrations create for it. */
const nativeTypes: Readonly<Record<string, NativeRenderer>> = {
  Text: () => "text",
  Char: (args) => `character(${args[0] ?? "1"})`,
  VarChar: (args) => `character varying${precision(args)}`,
  Bit: (args) => `bit(${args[0] ?? "1"})`,
  VarBit: (args) => `bit varying${precision(args)}`,
  Uuid: () => "uuid",
  Xml: () => "xml",
  Inet: () => "inet",
  Citext: () => "citext",
  Boolean: () => "boolean",
  Integer: () => "integer",
  SmallInt: () => "smallint",
  Oid: () => "oid",
  BigInt: () => "bigint",
  DoublePrecision: () => "double precision",
  Real: () => "real",
  // `numeric(p)` is stored as scale 0, which format_type prints explicitly.
  Decimal: (args) => (args[0] === undefined ? "numeric" : `numeric(${args[0]},${args[1] ?? "0"})`),
  Money: () => "money",
  Timestamp: (args) => `timestamp${precision(args)} without time zone`,
  Timestamptz: (args) => `timestamp${precision(args)} with time zone`,
  Date: () => "date",
  Time: (args) => `time${precision(args)} without time zone`,
  Timetz: (args) => `time${precision(args)} with time zone`,
  Json: () => "json",
  JsonB: () => "jsonb",
  ByteA: () => "bytea",
};

/** The type a Prisma scalar gets without `@db.*`, and how its literals compare. */
const scalarTypes: Readonly<
  Record<string, { readonly type: string; readonly family: ValueFamily }>
> = {
  String: { type: "text", family: "text" },
  Boolean: { type: "boolean", family: "boolean" },
  Int: { type: "integer", family: "number" },
  BigInt: { type: "bigint", family: "number" },
  Float: { type: "double precision", family: "number" },
  Decimal: { type: "numeric(65,30)", family: "number" },
  DateTime: { type: "timestamp(3) without time zone", family: "datetime" },
  Json: { type: "jsonb", family: "json" },
  Bytes: { type: "bytea", family: "bytes" },
};

export interface FieldType {
  readonly kind: string;
  readonly type: string;
  readonly isList: boolean;
  readonly nativeType?: readonly [string, readonly string[]] | null;
}

export interface ColumnType {
  readonly type: string;
  readonly family: ValueFamily;
}

/**
 * The Postgres type of a scalar or enum field. `enumNames` maps an enum's Prisma name to its
 * database name (`@@map`), since the column's type is the database enum.
 */
export function columnType(field: FieldType, enumNames: ReadonlyMap<string, string>): ColumnType {
  const base = baseType(field, enumNames);
  return { type: field.isList ? `${base.type}[]` : base.type, family: base.family };
}

function baseType(field: FieldType, enumNames: ReadonlyMap<string, string>): ColumnType {
  if (field.kind === "enum") {
    return { type: enumNames.get(field.type) ?? field.type, family: "text" };
  }
  const scalar = scalarTypes[field.type];
  if (scalar === undefined) {
    throw new UnsupportedSchemaError(`field type ${field.type} has no known Postgres type`);
  }
  if (field.nativeType == null) return scalar;
  const [name, args] = field.nativeType;
  const render = nativeTypes[name];
  if (render === undefined) {
    throw new UnsupportedSchemaError(`native type @db.${name} has no known Postgres type`);
  }
  return { type: render(args), family: scalar.family };
}

/** Strips identifier quotes, which format_type adds to mixed-case or reserved names. */
export function unquoteType(type: string): string {
  return type.replaceAll('"', "");
}

/** A Prisma schema feature the drift checker cannot turn into an expected database shape. */
export class UnsupportedSchemaError extends Error {
  override readonly name = "UnsupportedSchemaError";
}
