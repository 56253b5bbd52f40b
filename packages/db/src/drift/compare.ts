import { matchAllowlist } from "./allowlist.ts";
import { defaultsMatch, describeDefault } from "./defaults.ts";
import { difference, type DriftDifference } from "./differences.ts";
import type {
  ActualSchema,
  ActualTable,
  AllowlistEntry,
  ExpectedSchema,
  ExpectedTable,
  ForeignKeyShape,
  IndexShape,
  SqlObject,
} from "./shapes.ts";

export interface CompareInput {
  readonly expected: ExpectedSchema;
  readonly actual: ActualSchema;
  readonly allowlist: readonly AllowlistEntry[];
}

/** Every difference, table by table in schema order, then extras and stale allowlist entries. */
export function compareSchemas({ expected, actual, allowlist }: CompareInput): DriftDifference[] {
  const differences: DriftDifference[] = [];
  const actualTables = new Map(actual.tables.map((table) => [table.name, table]));
  for (const table of expected.tables) {
    const found = actualTables.get(table.name);
    if (found === undefined)
      differences.push(difference({ kind: "missingTable", table: table.name }));
    else differences.push(...compareTable(table, found));
  }
  differences.push(...compareEnums(expected, actual));

  const modelled = new Set(expected.tables.map((table) => table.name));
  const expectedEnums = new Set(expected.enums.map((e) => e.name));
  // Whatever hangs off an unmodelled table or a view is covered by that relation's own entry
  // (or reported with it), so one forgotten table yields one difference, not one per index.
  const candidates: SqlObject[] = [
    ...actual.tables
      .filter((table) => !modelled.has(table.name))
      .map((table) => sqlTable(table.name)),
    ...actual.enums
      .filter((e) => !expectedEnums.has(e.name))
      .map((e): SqlObject => ({ kind: "type", name: e.name })),
    ...actual.sqlObjects.filter(
      (object) => object.table === undefined || modelled.has(object.table),
    ),
  ];
  const { unlisted, stale } = matchAllowlist(candidates, allowlist);
  for (const object of unlisted) {
    differences.push(
      object.kind === "table"
        ? difference({ kind: "extraTable", table: object.name })
        : difference({ kind: "unlistedSqlObject", object }),
    );
  }
  for (const entry of stale) differences.push(difference({ kind: "staleAllowlistEntry", entry }));
  return differences;
}

function sqlTable(name: string): SqlObject {
  return { kind: "table", name };
}

function compareTable(expected: ExpectedTable, actual: ActualTable): DriftDifference[] {
  const table = expected.name;
  const out: DriftDifference[] = [];
  const actualColumns = new Map(actual.columns.map((column) => [column.name, column]));
  for (const column of expected.columns) {
    const found = actualColumns.get(column.name);
    const ref = { table, column: column.name };
    if (found === undefined) {
      out.push(difference({ kind: "missingColumn", ...ref, expectedType: column.type }));
      continue;
    }
    if (found.type !== column.type) {
      out.push(
        difference({ kind: "typeMismatch", ...ref, expected: column.type, actual: found.type }),
      );
    }
    if (found.nullable !== column.nullable) {
      out.push(
        difference({ kind: "nullabilityMismatch", ...ref, expectedNullable: column.nullable }),
      );
    }
    if (!defaultsMatch(column.default, found.defaultValue, column)) {
      const expectedText = describeDefault(column.default, column.family);
      out.push(
        difference({
          kind: "defaultMismatch",
          ...ref,
          expected: expectedText,
          actual: found.default,
        }),
      );
    }
  }
  const expectedColumns = new Set(expected.columns.map((column) => column.name));
  for (const column of actual.columns) {
    if (!expectedColumns.has(column.name)) {
      out.push(
        difference({ kind: "extraColumn", table, column: column.name, actualType: column.type }),
      );
    }
  }

  const expectedKey = expected.primaryKey === null ? [] : [{ columns: expected.primaryKey }];
  const actualKey = actual.primaryKey === null ? [] : [actual.primaryKey];
  const keys = pair(expectedKey, actualKey, (key) => key.columns.join(", "));
  for (const key of keys.missing)
    out.push(difference({ kind: "missingPrimaryKey", table, columns: key.columns }));
  for (const key of keys.extra) {
    out.push(difference({ kind: "extraPrimaryKey", table, columns: key.columns, name: key.name }));
  }

  const uniques = pair(expected.uniques, actual.uniques, indexKey);
  for (const index of uniques.missing)
    out.push(difference({ kind: "missingUnique", table, ...index }));
  for (const index of uniques.extra) out.push(difference({ kind: "extraUnique", table, ...index }));

  const indexes = pair(expected.indexes, actual.indexes, indexKey);
  for (const index of indexes.missing)
    out.push(difference({ kind: "missingIndex", table, ...index }));
  for (const index of indexes.extra) out.push(difference({ kind: "extraIndex", table, ...index }));

  const foreignKeys = pair(expected.foreignKeys, actual.foreignKeys, foreignKeyKey);
  for (const fk of foreignKeys.missing)
    out.push(difference({ kind: "missingForeignKey", table, ...fk }));
  for (const fk of foreignKeys.extra)
    out.push(difference({ kind: "extraForeignKey", table, ...fk }));
  return out;
}

function compareEnums(expected: ExpectedSchema, actual: ActualSchema): DriftDifference[] {
  const actualEnums = new Map(actual.enums.map((e) => [e.name, e.values]));
  return expected.enums.flatMap((e) => {
    const values = actualEnums.get(e.name);
    if (values === undefined) return [difference({ kind: "missingEnum", enum: e.name })];
    const same =
      values.length === e.values.length && values.every((value, i) => value === e.values[i]);
    return same
      ? []
      : [
          difference({
            kind: "enumValuesMismatch",
            enum: e.name,
            expected: e.values,
            actual: values,
          }),
        ];
  });
}

function indexKey(index: IndexShape): string {
  return `${index.method}(${index.columns.join(", ")})`;
}

function foreignKeyKey(fk: ForeignKeyShape): string {
  return JSON.stringify([
    fk.columns,
    fk.referencedTable,
    fk.referencedColumns,
    fk.onDelete,
    fk.onUpdate,
  ]);
}

/**
 * Matches two lists by key as multisets: a second identical index in the database is extra
 * even though the first one satisfies the schema.
 */
function pair<TExpected, TActual>(
  expected: readonly TExpected[],
  actual: readonly TActual[],
  key: (item: TExpected | TActual) => string,
): { missing: TExpected[]; extra: TActual[] } {
  const available = new Map<string, number>();
  for (const item of actual) available.set(key(item), (available.get(key(item)) ?? 0) + 1);
  const missing = expected.filter((item) => {
    const count = available.get(key(item)) ?? 0;
    if (count === 0) return true;
    available.set(key(item), count - 1);
    return false;
  });
  const extra = actual.filter((item) => {
    const count = available.get(key(item)) ?? 0;
    if (count === 0) return false;
    available.set(key(item), count - 1);
    return true;
  });
  return { missing, extra };
}
