export { createTestDatabase, useTestDatabase } from "./testDatabase.ts";
export type { CreateTestDatabaseOptions, TestDatabase } from "./testDatabase.ts";
export { ensureTemplate } from "./template.ts";
export { sweepLeftoverDatabases } from "./sweep.ts";
export { TEMPLATE_PREFIX, TEST_DATABASE_PREFIX } from "./names.ts";
export { startS3Server, useS3Server } from "./s3Server.ts";
export type { AbortedUpload, StartS3ServerOptions, TestS3Server } from "./s3Server.ts";
export { freePort } from "./freePort.ts";
