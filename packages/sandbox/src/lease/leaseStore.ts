import { Prisma, type DbClientOrTx } from "@berth/db";
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
  return rows.map((row) => ({
    outcome: row.outcome,
    reason: row.reason,
    lease: row.lease === null ? null : parseLeaseRow(row.lease),
  }));
}

/** The single row of a function that answers once. */
export async function callLeaseFunctionOnce(
  db: DbClientOrTx,
  call: Prisma.Sql,
): Promise<TransitionRow> {
  const [row] = await callLeaseFunction(db, call);
  if (row === undefined) throw new Error("lease function returned no row");
  return row;
}

export { Prisma };
