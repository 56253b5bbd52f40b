import type pg from "pg";

// Raw reads of the pg catalog for one schema ($1). Objects that belong to an extension
// (pgcrypto's functions, say) are skipped: the extension owns them, not our migrations.

const notExtensionMember = (catalog: string, oid: string): string => `NOT EXISTS (
  SELECT 1 FROM pg_depend d
   WHERE d.classid = '${catalog}'::regclass AND d.objid = ${oid} AND d.deptype = 'e')`;

/** Attribute names of `attnums` on `relid`, in order. */
const attnames = (attnums: string, relid: string, where = "true"): string => `ARRAY(
  SELECT a.attname::text FROM unnest(${attnums}) WITH ORDINALITY AS key(attnum, ord)
    JOIN pg_attribute a ON a.attrelid = ${relid} AND a.attnum = key.attnum
   WHERE ${where} ORDER BY key.ord)`;

export interface RelationRow {
  readonly name: string;
  /** r table, p partitioned table, v view, m materialized view, S sequence. */
  readonly kind: string;
}
const relations = `
SELECT c.relname AS name, c.relkind::text AS kind
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
   AND c.relname <> '_prisma_migrations'
   AND ${notExtensionMember("pg_class", "c.oid")}
   -- serial and identity sequences belong to their column
   AND NOT (c.relkind = 'S' AND EXISTS (
     SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
        AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')))
 ORDER BY 1`;

export interface ColumnRow {
  readonly table: string;
  readonly column: string;
  readonly type: string;
  readonly not_null: boolean;
  readonly default: string | null;
  readonly identity: boolean;
  readonly generated: boolean;
}
const columns = `
SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
       a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default,
       a.attidentity <> '' AS identity, a.attgenerated <> '' AS generated
  FROM pg_attribute a
  JOIN pg_class c ON c.oid = a.attrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY c.relname, a.attnum`;

export interface IndexRow {
  readonly table: string;
  readonly name: string;
  readonly is_unique: boolean;
  readonly is_primary: boolean;
  readonly method: string;
  /** Partial, expression or INCLUDE index: nothing `@@index` can write. */
  readonly custom: boolean;
  readonly exclusion: boolean;
  readonly columns: readonly string[];
  /** pg_index.indoption per key column: bit 0 DESC, bit 1 NULLS FIRST. */
  readonly options: readonly number[];
}
const indexes = `
SELECT t.relname AS table, i.relname AS name, x.indisunique AS is_unique, x.indisprimary AS is_primary,
       am.amname::text AS method,
       (x.indpred IS NOT NULL OR x.indexprs IS NOT NULL OR x.indnkeyatts <> x.indnatts) AS custom,
       EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.contype = 'x') AS exclusion,
       ${attnames("x.indkey::int2[]", "x.indrelid", "key.ord <= x.indnkeyatts")} AS columns,
       ARRAY(SELECT o.opt::int FROM unnest(x.indoption::int2[]) WITH ORDINALITY AS o(opt, ord)
              ORDER BY o.ord) AS options
  FROM pg_index x
  JOIN pg_class i ON i.oid = x.indexrelid
  JOIN pg_class t ON t.oid = x.indrelid
  JOIN pg_namespace n ON n.oid = t.relnamespace
  JOIN pg_am am ON am.oid = i.relam
 WHERE n.nspname = $1 AND t.relname <> '_prisma_migrations'
 ORDER BY t.relname, i.relname`;

export interface ForeignKeyRow {
  readonly name: string;
  readonly table: string;
  readonly referenced_table: string;
  readonly columns: readonly string[];
  readonly referenced_columns: readonly string[];
  /** pg_constraint.confdeltype / confupdtype: a, r, c, n, d. */
  readonly on_delete: string;
  readonly on_update: string;
}
const foreignKeys = `
SELECT k.conname AS name, t.relname AS table, r.relname AS referenced_table,
       ${attnames("k.conkey", "k.conrelid")} AS columns,
       ${attnames("k.confkey", "k.confrelid")} AS referenced_columns,
       k.confdeltype::text AS on_delete, k.confupdtype::text AS on_update
  FROM pg_constraint k
  JOIN pg_class t ON t.oid = k.conrelid
  JOIN pg_class r ON r.oid = k.confrelid
  JOIN pg_namespace n ON n.oid = t.relnamespace
 WHERE n.nspname = $1 AND k.contype = 'f' AND k.conparentid = 0
 ORDER BY 2, 1`;

export interface TableObjectRow {
  readonly name: string;
  readonly table: string;
  /** check, exclusion, trigger or policy. */
  readonly kind: string;
}
const tableObjects = `
SELECT k.conname AS name, t.relname AS table,
       CASE k.contype WHEN 'c' THEN 'check' ELSE 'exclusion' END AS kind
  FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
 WHERE n.nspname = $1 AND k.contype IN ('c', 'x') AND k.conparentid = 0
UNION ALL
SELECT g.tgname, c.relname, 'trigger'
  FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = $1 AND NOT g.tgisinternal AND g.tgparentid = 0
UNION ALL
SELECT p.polname, c.relname, 'policy'
  FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = $1
 ORDER BY 2, 1`;

export interface RoutineRow {
  readonly name: string;
  /** pg_proc.prokind: f function, p procedure, a aggregate, w window function. */
  readonly kind: string;
}
const routines = `
SELECT DISTINCT p.proname AS name, p.prokind::text AS kind
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = $1 AND ${notExtensionMember("pg_proc", "p.oid")}
 ORDER BY 1, 2`;

export interface TypeRow {
  readonly name: string;
  /** pg_type.typtype: e enum, d domain, r range, c standalone composite. */
  readonly kind: string;
  readonly labels: readonly string[] | null;
}
const types = `
SELECT t.typname AS name, t.typtype::text AS kind,
       CASE WHEN t.typtype = 'e' THEN ARRAY(
         SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder)
       END AS labels
  FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
 WHERE n.nspname = $1 AND ${notExtensionMember("pg_type", "t.oid")}
   AND (t.typtype IN ('e', 'd', 'r')
        OR (t.typtype = 'c' AND (SELECT c.relkind FROM pg_class c WHERE c.oid = t.typrelid) = 'c'))
 ORDER BY 1`;

export interface CatalogRows {
  readonly relations: readonly RelationRow[];
  readonly columns: readonly ColumnRow[];
  readonly indexes: readonly IndexRow[];
  readonly foreignKeys: readonly ForeignKeyRow[];
  readonly tableObjects: readonly TableObjectRow[];
  readonly routines: readonly RoutineRow[];
  readonly types: readonly TypeRow[];
}

/**
 * Reads every catalog query in one read-only snapshot, with the schema first on the search
 * path so format_type prints its types unqualified, as the expected side spells them.
 */
export async function readCatalog(client: pg.Client, schema: string): Promise<CatalogRows> {
  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  try {
    await client.query("SELECT set_config('search_path', quote_ident($1), true)", [schema]);
    // Timestamp defaults print in the session time zone; UTC makes them comparable.
    await client.query("SET LOCAL TIME ZONE 'UTC'");
    const read = async <TRow extends pg.QueryResultRow>(sql: string) =>
      (await client.query<TRow>(sql, [schema])).rows;
    return {
      relations: await read<RelationRow>(relations),
      columns: await read<ColumnRow>(columns),
      indexes: await read<IndexRow>(indexes),
      foreignKeys: await read<ForeignKeyRow>(foreignKeys),
      tableObjects: await read<TableObjectRow>(tableObjects),
      routines: await read<RoutineRow>(routines),
      types: await read<TypeRow>(types),
    };
  } finally {
    await client.query("ROLLBACK");
  }
}
