import type {
  AllowlistEntry,
  ForeignKeyShape,
  IndexShape,
  ReferentialAction,
  SqlObject,
} from "./shapes.ts";

type ColumnRef = { readonly table: string; readonly column: string };
type Columns = { readonly table: string; readonly columns: readonly string[] };
type Index = { readonly table: string } & IndexShape;
type ForeignKey = { readonly table: string } & ForeignKeyShape;
type Name = { readonly name: string };

/** One disagreement between schema.prisma (+ allowlist) and the database, without its message. */
export type DifferenceData =
  | ({ readonly kind: "missingTable" } & { readonly table: string })
  | ({ readonly kind: "extraTable" } & { readonly table: string })
  | ({ readonly kind: "missingColumn"; readonly expectedType: string } & ColumnRef)
  | ({ readonly kind: "extraColumn"; readonly actualType: string } & ColumnRef)
  | ({
      readonly kind: "typeMismatch";
      readonly expected: string;
      readonly actual: string;
    } & ColumnRef)
  | ({ readonly kind: "nullabilityMismatch"; readonly expectedNullable: boolean } & ColumnRef)
  | ({
      readonly kind: "defaultMismatch";
      /** The schema's default as Prisma would write it; null when it has none. */
      readonly expected: string | null;
      /** `pg_get_expr` of the database default; null when it has none. */
      readonly actual: string | null;
    } & ColumnRef)
  | ({ readonly kind: "missingPrimaryKey" } & Columns)
  | ({ readonly kind: "extraPrimaryKey" } & Columns & Name)
  | ({ readonly kind: "missingUnique" } & Index)
  | ({ readonly kind: "extraUnique" } & Index & Name)
  | ({ readonly kind: "missingIndex" } & Index)
  | ({ readonly kind: "extraIndex" } & Index & Name)
  | ({ readonly kind: "missingForeignKey" } & ForeignKey)
  | ({ readonly kind: "extraForeignKey" } & ForeignKey & Name)
  | { readonly kind: "missingEnum"; readonly enum: string }
  | {
      readonly kind: "enumValuesMismatch";
      readonly enum: string;
      readonly expected: readonly string[];
      readonly actual: readonly string[];
    }
  | { readonly kind: "unlistedSqlObject"; readonly object: SqlObject }
  | { readonly kind: "staleAllowlistEntry"; readonly entry: AllowlistEntry };

export type DriftDifference = DifferenceData & { readonly message: string };
export type DriftDifferenceKind = DriftDifference["kind"];

export interface DriftReport {
  /** Empty when the database matches schema.prisma and the allowlist; ordered by table. */
  readonly differences: readonly DriftDifference[];
}

export function difference(data: DifferenceData): DriftDifference {
  return { ...data, message: describe(data) };
}

function describe(d: DifferenceData): string {
  switch (d.kind) {
    case "missingTable":
      return `table ${d.table} is in schema.prisma but not in the database`;
    case "extraTable":
      return `table ${d.table} is in the database but neither in schema.prisma nor in sql-only.json`;
    case "missingColumn":
      return `column ${d.table}.${d.column} (${d.expectedType}) is in schema.prisma but not in the database`;
    case "extraColumn":
      return `column ${d.table}.${d.column} (${d.actualType}) is in the database but not in schema.prisma`;
    case "typeMismatch":
      return `column ${d.table}.${d.column}: schema.prisma says ${d.expected}, the database has ${d.actual}`;
    case "nullabilityMismatch":
      return `column ${d.table}.${d.column}: schema.prisma says ${nullability(d.expectedNullable)}, the database has ${nullability(!d.expectedNullable)}`;
    case "defaultMismatch":
      return `column ${d.table}.${d.column}: schema.prisma's default is ${d.expected ?? "none"}, the database's is ${d.actual ?? "none"}`;
    case "missingPrimaryKey":
      return `table ${d.table}: primary key (${d.columns.join(", ")}) is in schema.prisma but not in the database`;
    case "extraPrimaryKey":
      return `table ${d.table}: primary key ${d.name} (${d.columns.join(", ")}) is in the database but not in schema.prisma`;
    case "missingUnique":
      return `table ${d.table}: unique ${indexText(d)} is in schema.prisma but not in the database`;
    case "extraUnique":
      return `table ${d.table}: unique index ${d.name} ${indexText(d)} is in the database but not in schema.prisma`;
    case "missingIndex":
      return `table ${d.table}: index ${indexText(d)} is in schema.prisma but not in the database`;
    case "extraIndex":
      return `table ${d.table}: index ${d.name} ${indexText(d)} is in the database but not in schema.prisma`;
    case "missingForeignKey":
      return `table ${d.table}: foreign key ${foreignKeyText(d)} is in schema.prisma but not in the database`;
    case "extraForeignKey":
      return `table ${d.table}: foreign key ${d.name} ${foreignKeyText(d)} is in the database but not in schema.prisma`;
    case "missingEnum":
      return `enum ${d.enum} is in schema.prisma but not in the database`;
    case "enumValuesMismatch":
      return `enum ${d.enum}: schema.prisma has [${d.expected.join(", ")}], the database has [${d.actual.join(", ")}]`;
    case "unlistedSqlObject":
      return `${objectText(d.object)} is in the database but schema.prisma cannot express it and sql-only.json does not list it`;
    case "staleAllowlistEntry":
      return `sql-only.json lists ${objectText(d.entry)}, which is not a SQL-only object of the database`;
    default:
      return unreachable(d);
  }
}

function nullability(nullable: boolean): string {
  return nullable ? "nullable" : "NOT NULL";
}

function indexText(index: IndexShape): string {
  const using = index.method === "btree" ? "" : ` USING ${index.method}`;
  return `(${index.columns.join(", ")})${using}`;
}

function foreignKeyText(fk: ForeignKeyShape): string {
  return (
    `(${fk.columns.join(", ")}) → ${fk.referencedTable}(${fk.referencedColumns.join(", ")}) ` +
    `ON DELETE ${sqlAction(fk.onDelete)} ON UPDATE ${sqlAction(fk.onUpdate)}`
  );
}

/** The fields keep Prisma's names; messages read like the SQL a migration would contain. */
function sqlAction(action: ReferentialAction): string {
  switch (action) {
    case "Cascade":
      return "CASCADE";
    case "Restrict":
      return "RESTRICT";
    case "NoAction":
      return "NO ACTION";
    case "SetNull":
      return "SET NULL";
    case "SetDefault":
      return "SET DEFAULT";
    default:
      return unreachable(action);
  }
}

function objectText(object: SqlObject): string {
  return object.table === undefined
    ? `${object.kind} ${object.name}`
    : `${object.kind} ${object.name} on ${object.table}`;
}

function unreachable(value: never): never {
  throw new Error(`unhandled drift difference ${JSON.stringify(value)}`);
}
