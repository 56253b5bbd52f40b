import type { DbClient, DbClientOrTx } from "@berth/db";

/**
 * Runs `body` in a transaction: the caller's, when handed one (its writes then commit or roll
 * back with the caller's), else a new one. Machine moves touch several rows (a machine, its
 * credentials, its code, an audit row) that must land together or not at all.
 */
export async function inTransaction<T>(
  db: DbClientOrTx,
  body: (tx: DbClientOrTx) => Promise<T>,
): Promise<T> {
  if (!isClient(db)) return await body(db);
  return await db.$transaction(body);
}

function isClient(db: DbClientOrTx): db is DbClient {
  return "$transaction" in db;
}
