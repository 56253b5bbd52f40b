// The structural shapes both sides are reduced to, so that comparing is plain equality.
// Names of indexes and constraints are carried for messages only: Prisma derives them by
// convention and a rename is not drift worth failing on, so comparison is by columns.

/** Prisma's referential actions, which map one-to-one onto Postgres's. */
export type ReferentialAction = "Cascade" | "Restrict" | "NoAction" | "SetNull" | "SetDefault";

/** A default as a value, independent of how SQL spells it (casts, quoting, synonyms). */
export type DefaultValue =
  | { readonly kind: "literal"; readonly value: string }
  | { readonly kind: "list"; readonly values: readonly string[] }
  | { readonly kind: "expression"; readonly text: string };

/**
 * What the schema says about a column's default. `dbGenerated` is `@default(dbgenerated())`
 * without an expression: the database must have a default, whatever it is.
 */
export type ExpectedDefault = DefaultValue | { readonly kind: "dbGenerated" } | null;

/** How a literal default is compared: `1.50` equals `1.5` only for numbers, and so on. */
export type ValueFamily = "text" | "number" | "boolean" | "json" | "datetime" | "bytes";

export interface ExpectedColumn {
  readonly name: string;
  /** As `format_type()` prints it, without identifier quotes. */
  readonly type: string;
  readonly nullable: boolean;
  readonly default: ExpectedDefault;
  readonly family: ValueFamily;
  readonly isList: boolean;
}

export interface ActualColumn {
  readonly name: string;
  readonly type: string;
  readonly nullable: boolean;
  /** `pg_get_expr` of the default, for messages. */
  readonly default: string | null;
  /** The default as a value; identity columns read as `autoincrement()`, like serial ones. */
  readonly defaultValue: DefaultValue | null;
}

/** An index Prisma can express: plain columns, optional DESC, an access method. */
export interface IndexShape {
  /** Column names in index order, each suffixed with ` DESC` when descending. */
  readonly columns: readonly string[];
  /** Lower-case access method, as `pg_am.amname`: btree, hash, gin, gist, spgist, brin. */
  readonly method: string;
}

export interface ForeignKeyShape {
  readonly columns: readonly string[];
  readonly referencedTable: string;
  readonly referencedColumns: readonly string[];
  readonly onDelete: ReferentialAction;
  readonly onUpdate: ReferentialAction;
}

export interface EnumShape {
  readonly name: string;
  readonly values: readonly string[];
}

export interface ExpectedTable {
  readonly name: string;
  readonly columns: readonly ExpectedColumn[];
  readonly primaryKey: readonly string[] | null;
  readonly uniques: readonly IndexShape[];
  readonly indexes: readonly IndexShape[];
  readonly foreignKeys: readonly ForeignKeyShape[];
}

export interface ExpectedSchema {
  readonly tables: readonly ExpectedTable[];
  readonly enums: readonly EnumShape[];
}

type Named<T> = T & { readonly name: string };

export interface ActualTable {
  readonly name: string;
  readonly columns: readonly ActualColumn[];
  readonly primaryKey: Named<{ readonly columns: readonly string[] }> | null;
  readonly uniques: readonly Named<IndexShape>[];
  readonly indexes: readonly Named<IndexShape>[];
  readonly foreignKeys: readonly Named<ForeignKeyShape>[];
}

/** Kinds of database objects the Prisma schema cannot express. */
export const sqlObjectKinds = [
  "table",
  "view",
  "materializedView",
  "check",
  "exclusion",
  "index",
  "trigger",
  "function",
  "procedure",
  "aggregate",
  "sequence",
  "type",
  "policy",
  "generatedColumn",
] as const;
export type SqlObjectKind = (typeof sqlObjectKinds)[number];

/** Kinds that live on a table, so an allowlist entry must say which table. */
export const tableScopedKinds: ReadonlySet<SqlObjectKind> = new Set([
  "check",
  "exclusion",
  "index",
  "trigger",
  "policy",
  "generatedColumn",
]);

export interface SqlObject {
  readonly kind: SqlObjectKind;
  readonly name: string;
  /** The table (or view) the object belongs to, for table-scoped kinds. */
  readonly table?: string;
}

export interface ActualSchema {
  readonly tables: readonly ActualTable[];
  readonly enums: readonly EnumShape[];
  /** Everything else found in the schema, each a candidate for the allowlist. */
  readonly sqlObjects: readonly SqlObject[];
}

/** One entry of `prisma/sql-only.json`. */
export interface AllowlistEntry extends SqlObject {
  readonly reason: string;
}
