export { createDbClient, Prisma, PrismaClient } from "./client.ts";
export type { CreateDbClientOptions, DbClient, DbClientOrTx } from "./client.ts";
export * from "./enums.ts";
export { queryRows, type BoundValue } from "./directQuery.ts";
export { preparedOnce } from "./preparedStatements.ts";
export { dbEnvSchema, dbTestEnvSchema, readDbEnv, readTestAdminUrl } from "./env.ts";
export type { DbEnv } from "./env.ts";
export { redactDatabaseUrl, withDatabase } from "./url.ts";
