import pg from "pg";
import { readCatalog, type CatalogRows, type IndexRow } from "./catalogQueries.ts";
import { parseDefault } from "./defaults.ts";
import { unquoteType } from "./postgresTypes.ts";
import type {
  ActualColumn,
  ActualSchema,
  ActualTable,
  ReferentialAction,
  SqlObject,
  SqlObjectKind,
} from "./shapes.ts";

/** The only schema Berth's migrations write to. */
const SCHEMA = "public";

/** Reads the database's `public` schema (without `_prisma_migrations`) from the pg catalog. */
export async function readActualSchema(connectionString: string): Promise<ActualSchema> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return actualFromCatalog(await readCatalog(client, SCHEMA));
  } finally {
    await client.end();
  }
}

export function actualFromCatalog(rows: CatalogRows): ActualSchema {
  const sqlObjects: SqlObject[] = [];
  const tableNames = rows.relations
    .filter((r) => r.kind === "r" || r.kind === "p")
    .map((r) => r.name);
  for (const relation of rows.relations) {
    const kind = relationKind(relation.kind);
    if (kind !== undefined) sqlObjects.push({ kind, name: relation.name });
  }
  const tables = tableNames.map((name) => actualTable(rows, name, sqlObjects));
  for (const row of rows.tableObjects) {
    sqlObjects.push({ kind: tableObjectKind(row.kind), name: row.name, table: row.table });
  }
  for (const routine of rows.routines) {
    sqlObjects.push({ kind: routineKind(routine.kind), name: routine.name });
  }
  const enums = [];
  for (const type of rows.types) {
    if (type.kind === "e") enums.push({ name: type.name, values: type.labels ?? [] });
    else sqlObjects.push({ kind: "type", name: type.name });
  }
  return { tables, enums, sqlObjects };
}

function actualTable(rows: CatalogRows, name: string, sqlObjects: SqlObject[]): ActualTable {
  const columns: ActualColumn[] = [];
  for (const row of rows.columns.filter((column) => column.table === name)) {
    if (row.generated) sqlObjects.push({ kind: "generatedColumn", name: row.column, table: name });
    const display = row.identity ? "GENERATED AS IDENTITY" : row.generated ? null : row.default;
    columns.push({
      name: row.column,
      type: unquoteType(row.type),
      nullable: !row.not_null,
      default: display,
      defaultValue: row.identity
        ? { kind: "expression", text: "autoincrement()" }
        : display === null
          ? null
          : parseDefault(display),
    });
  }
  // An exclusion constraint's index is part of the constraint, listed as `exclusion`.
  const indexes = rows.indexes.filter((index) => index.table === name && !index.exclusion);
  const expressible = indexes.filter((index) => {
    if (isExpressible(index)) return true;
    sqlObjects.push({ kind: "index", name: index.name, table: name });
    return false;
  });
  const primary = expressible.find((index) => index.is_primary);
  const shape = (index: IndexRow) => ({
    name: index.name,
    method: index.method,
    columns: index.columns.map((column, i) =>
      (index.options[i] ?? 0) & 1 ? `${column} DESC` : column,
    ),
  });
  return {
    name,
    columns,
    primaryKey: primary === undefined ? null : { name: primary.name, columns: primary.columns },
    uniques: expressible.filter((index) => !index.is_primary && index.is_unique).map(shape),
    indexes: expressible.filter((index) => !index.is_unique).map(shape),
    foreignKeys: rows.foreignKeys
      .filter((fk) => fk.table === name)
      .map((fk) => ({
        name: fk.name,
        columns: fk.columns,
        referencedTable: fk.referenced_table,
        referencedColumns: fk.referenced_columns,
        onDelete: referentialAction(fk.on_delete),
        onUpdate: referentialAction(fk.on_update),
      })),
  };
}

/**
 * What `@id`, `@unique` and `@@index` can produce: plain key columns, and a NULLS order that is
 * the default for the direction (NULLS LAST ascending, NULLS FIRST descending).
 */
function isExpressible(index: IndexRow): boolean {
  const defaultNulls = index.options.every((option) => Boolean(option & 1) === Boolean(option & 2));
  return !index.custom && defaultNulls && index.columns.length === index.options.length;
}

function relationKind(kind: string): SqlObjectKind | undefined {
  switch (kind) {
    case "v":
      return "view";
    case "m":
      return "materializedView";
    case "S":
      return "sequence";
    default:
      return undefined;
  }
}

function tableObjectKind(kind: string): SqlObjectKind {
  switch (kind) {
    case "check":
    case "exclusion":
    case "trigger":
    case "policy":
      return kind;
    default:
      throw new Error(`unexpected table object kind ${kind}`);
  }
}

function routineKind(kind: string): SqlObjectKind {
  if (kind === "p") return "procedure";
  if (kind === "a") return "aggregate";
  return "function";
}

/** pg_constraint's one-letter referential actions. */
function referentialAction(code: string): ReferentialAction {
  switch (code) {
    case "a":
      return "NoAction";
    case "r":
      return "Restrict";
    case "c":
      return "Cascade";
    case "n":
      return "SetNull";
    case "d":
      return "SetDefault";
    default:
      throw new Error(`unknown referential action code ${code}`);
  }
}
