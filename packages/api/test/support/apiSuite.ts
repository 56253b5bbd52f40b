import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDbClient, type DbClient } from "@berth/db";
import type { BoxAccess } from "@berth/sandbox";
import { removeLocalBoxes } from "@berth/sandbox/testing";
import type { Clock } from "@berth/sandbox/clock";
import { useTestDatabase } from "@berth/testkit";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll } from "vitest";
import type { BerthApi, BoxDeps } from "../../src/index.ts";
import { createTestApi, testSecret } from "./testApi.ts";

/**
 * A test file's own database, the real API over it, and a db client for seeding and checking.
 * The API's pool gives concurrent callers their own connections, so races below are real.
 */
export function useApiSuite(
  options: {
    clock?: Clock;
    /** Box services of the test's own making; it may read `dataDir` of the returned suite. */
    boxes?: (deps: BoxDeps) => BoxAccess;
    /**
     * More environment for the API (e.g. an archive store), read when it is built: after the
     * hooks registered before this call (a server they start) have run.
     */
    env?: () => Record<string, string>;
  } = {},
): {
  readonly api: BerthApi;
  readonly db: DbClient;
  readonly databaseUrl: string;
  /** Where the suite's local boxes live; removed (boxes stopped) after the file. */
  readonly dataDir: string;
} {
  const database = useTestDatabase();
  let api: BerthApi | undefined;
  let db: DbClient | undefined;
  let dataDir: string | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "berth-api-"));
    const { env, ...rest } = options;
    api = createTestApi(database.current.url, {
      ...rest,
      dataDir,
      ...(env === undefined ? {} : { env: env() }),
    });
    db = createDbClient({ connectionString: database.current.url, maxConnections: 2 });
  });
  afterAll(async () => {
    await db?.$disconnect();
    await api?.close();
    if (dataDir !== undefined) await removeLocalBoxes({ dataDir, secret: testSecret });
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("useApiSuite: use it inside a test or hook");
    return value;
  };
  return {
    get api() {
      return ready(api);
    },
    get db() {
      return ready(db);
    },
    get databaseUrl() {
      return database.current.url;
    },
    get dataDir() {
      return ready(dataDir);
    },
  };
}

/** "answered", or the tRPC code a call was refused with. */
export function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "answered",
    (error: unknown) => (error instanceof TRPCError ? error.code : String(error)),
  );
}

/**
 * Calls `call` until it is answered with `code` or `withinMs` pass, and says what it was last
 * answered: for a change another process made, which reaches this one by NOTIFY.
 */
export async function codeWithin(
  call: () => Promise<unknown>,
  code: string,
  withinMs = 5_000,
): Promise<string> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const answered = await codeOf(call());
    if (answered === code || performance.now() > deadline) return answered;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
