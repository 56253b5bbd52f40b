import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { registerDirectPool } from "./directQuery.ts";
import { PrismaClient } from "./generated/prisma/client.ts";
import { preparedStatements } from "./preparedStatements.ts";

export { Prisma, PrismaClient } from "./generated/prisma/client.ts";

/** The Prisma client, or the client of an interactive transaction: store functions take either. */
export type DbClient = PrismaClient;
export type DbClientOrTx =
  | PrismaClient
  | Omit<PrismaClient, `$${"connect" | "disconnect" | "on" | "transaction" | "extends"}`>;

export interface CreateDbClientOptions {
  readonly connectionString: string;
  /** Pool size; defaults to pg's 10. */
  readonly maxConnections?: number;
}

/** A Prisma client over `pg` (Prisma 7's Rust-free client: no engine binary at runtime). */
export function createDbClient(options: CreateDbClientOptions): DbClient {
  const prepared = preparedStatements();
  // @types/pg types `onConnect` as returning void, but pg-pool awaits the promise it returns
  // before the connection serves its first query, which is what the namer relies on.
  const poolConfig = {
    connectionString: options.connectionString,
    ...(options.maxConnections === undefined ? {} : { max: options.maxConnections }),
    onConnect: prepared.onConnect,
  };
  // One pool for Prisma and for the hot statements sent to it directly (directQuery.ts).
  const pool = new pg.Pool(poolConfig);
  // An idle connection the server closes (a restart, a dropped test database) is replaced on
  // the next checkout; without a listener its error would end the process.
  pool.on("error", () => undefined);
  const adapter = new PrismaPg(pool, { statementNameGenerator: prepared.statementNameGenerator });
  // "minimal", as Prisma itself picks under NODE_ENV=production: any other format captures a
  // stack trace (`new Error()`) on every query, only to point a rare error message at the
  // calling line, and that was the largest single cost of a lease call inside Prisma. Errors
  // keep their class, code and message.
  const client = new PrismaClient({ adapter, errorFormat: "minimal" });
  registerDirectPool(client, { pool, nameOf: prepared.statementNameGenerator });
  // The pool is ours, and may serve direct statements before Prisma ever connects: it ends
  // with the client, whether or not Prisma opened it.
  const disconnect = client.$disconnect.bind(client);
  client.$disconnect = async () => {
    await disconnect();
    if (!pool.ended) await pool.end();
  };
  return client;
}
