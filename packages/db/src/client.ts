import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client.ts";

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
  const adapter = new PrismaPg({
    connectionString: options.connectionString,
    ...(options.maxConnections === undefined ? {} : { max: options.maxConnections }),
  });
  return new PrismaClient({ adapter });
}
