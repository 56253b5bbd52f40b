import { preparedOnce, Prisma, type DbClientOrTx } from "@berth/db";
import { parseLeaseRow, type LeaseSnapshot } from "./snapshot.ts";

/** One row of any lease function: what happened, why, and the lease after it. */
export interface TransitionRow {
  readonly outcome: string;
  readonly reason: string | null;
  readonly lease: LeaseSnapshot | null;
}

interface RawTransitionRow {
  outcome: string;
  reason: string | null;
  lease: unknown;
}

/** A value bound to a lease function argument. */
export type LeaseArg = string | number | Date | null;

const SELECT = "SELECT outcome, reason, lease FROM ";

/** Statement text per call site: a tag's strings array is one object for the life of the process. */
const statements = new WeakMap<TemplateStringsArray, string>();

function statementFor(strings: TemplateStringsArray): string {
  let text = statements.get(strings);
  if (text === undefined) {
    text = preparedOnce(SELECT + strings.reduce((sql, part, i) => `${sql}$${String(i)}${part}`));
    statements.set(strings, text);
  }
  return text;
}

/**
 * A tag for the hot lease calls (acquire, heartbeat, release):
 * `leaseCall(db)\`berth_lease_x(${id}::uuid, …)\`` answers the function's single row. Like
 * Prisma.sql, every value is a bound parameter; unlike it, the statement text is built once per
 * call site instead of composing a Prisma.Sql on every call, and so it can be prepared once per
 * connection.
 */
export function leaseCall(db: DbClientOrTx) {
  return async (strings: TemplateStringsArray, ...values: LeaseArg[]): Promise<TransitionRow> => {
    const args = values.map((value) => (value instanceof Date ? wallTime(value) : value));
    const rows = await db.$queryRawUnsafe<RawTransitionRow[]>(statementFor(strings), ...args);
    return singleRow(rows.map(transitionRow));
  };
}

/**
 * Calls one lease function: one statement, one round trip. The function's name and arguments are
 * a Prisma.Sql fragment, so every value is a bound parameter.
 */
export async function callLeaseFunction(
  db: DbClientOrTx,
  call: Prisma.Sql,
): Promise<TransitionRow[]> {
  const rows = await db.$queryRaw<RawTransitionRow[]>(
    Prisma.sql`SELECT outcome, reason, lease FROM ${call}`,
  );
  return rows.map(transitionRow);
}

/** The single row of a function that answers once. */
export async function callLeaseFunctionOnce(
  db: DbClientOrTx,
  call: Prisma.Sql,
): Promise<TransitionRow> {
  return singleRow(await callLeaseFunction(db, call));
}

/**
 * A Date as Prisma's raw path sends one (which costs it a check, a format, a re-parse and a
 * re-format per value): its UTC wall time without a zone, read in the session's TimeZone. Keep
 * it so: Prisma reads timestamptz results back as UTC wall time too, so DatabaseClock's `now`
 * (read through Prisma) and this argument agree even on a server whose TimeZone is not UTC.
 */
function wallTime(date: Date): string {
  return date.toISOString().slice(0, -1);
}

function transitionRow(row: RawTransitionRow): TransitionRow {
  return {
    outcome: row.outcome,
    reason: row.reason,
    lease: row.lease === null ? null : parseLeaseRow(row.lease),
  };
}

function singleRow(rows: readonly TransitionRow[]): TransitionRow {
  const [row] = rows;
  if (row === undefined) throw new Error("lease function returned no row");
  return row;
}

export { Prisma };
