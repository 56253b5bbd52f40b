import { Prisma } from "./generated/prisma/client.ts";

/**
 * Prisma and Postgres errors after which the same transaction may simply be retried:
 * serialization failures, deadlocks, and Prisma's write-conflict code.
 */
const RETRIABLE_PRISMA_CODES = new Set(["P2034", "P1017"]);
const RETRIABLE_SQLSTATES = new Set(["40001", "40P01"]);

/** True when retrying the whole transaction is the right response to `error`. */
export function isRetriableDbError(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    return RETRIABLE_PRISMA_CODES.has(error.code);
  }
  return RETRIABLE_SQLSTATES.has(sqlState(error) ?? "");
}

/** True for a unique-constraint violation, from Prisma (P2002) or raw SQL (23505). */
export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError) return error.code === "P2002";
  return sqlState(error) === "23505";
}

function sqlState(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}
