import type pg from "pg";

/** A value bound to a statement: Dates go as Prisma's raw path sends them (see `boundValue`). */
export type BoundValue = string | number | boolean | Date | null;

interface DirectPool {
  readonly pool: pg.Pool;
  /** The pool's statement namer: "" leaves a statement unnamed (parsed on every call). */
  readonly nameOf: (query: { sql: string }) => string;
}

/** The pool under each client createDbClient made; a transaction's client is not in here. */
const directPools = new WeakMap<object, DirectPool>();

export function registerDirectPool(client: object, direct: DirectPool): void {
  directPools.set(client, direct);
}

/**
 * Rows of one hand-written statement. On a client createDbClient made, the statement goes
 * straight to its pg pool — the same connections, prepared statements and session settings
 * Prisma uses — which skips Prisma's raw-query path (argument typing, a row-mode conversion,
 * result re-typing): a third of a millisecond per statement, paid three times by every box call
 * (`pnpm bench services`). Inside an interactive transaction it goes through the transaction's
 * client, so it stays in the transaction.
 *
 * Only for statements whose columns read the same either way: text, uuid, int4, boolean and
 * json(b). pg and Prisma read int8, numeric and timestamps differently, so a statement that
 * needs one compares or casts it in SQL instead.
 */
export async function queryRows<T>(
  db: { $queryRawUnsafe<R>(sql: string, ...values: unknown[]): Promise<R> },
  sql: string,
  values: readonly BoundValue[],
): Promise<T[]> {
  const bound = values.map(boundValue);
  const direct = directPools.get(db);
  if (direct === undefined) return db.$queryRawUnsafe<T[]>(sql, ...bound);
  const name = direct.nameOf({ sql });
  const result = await direct.pool.query<T & pg.QueryResultRow>(
    name === "" ? { text: sql, values: bound } : { name, text: sql, values: bound },
  );
  return result.rows;
}

/**
 * A Date as Prisma's raw path sends one: its UTC wall time without a zone, read in the
 * session's TimeZone. Both paths bind it so, and Prisma reads timestamptz results back as UTC
 * wall time too, so a clock read through Prisma and this argument agree even on a server whose
 * TimeZone is not UTC.
 */
function boundValue(value: BoundValue): Exclude<BoundValue, Date> {
  return value instanceof Date ? value.toISOString().slice(0, -1) : value;
}
