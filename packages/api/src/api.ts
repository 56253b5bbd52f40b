import { createDbClient, type DbClient } from "@berth/db";
import type { ApiEnv } from "./env.ts";
import { appRouter } from "./root.ts";
import type { ApiContext, BuildInfo } from "./trpc.ts";

/** One process's API: the router, and the per-request context over one shared db client. */
export interface BerthApi {
  readonly router: typeof appRouter;
  createContext(): ApiContext;
  close(): Promise<void>;
}

/** Builds the API from validated environment; the only place the API's db client is made. */
export function createBerthApi(env: ApiEnv): BerthApi {
  const db: DbClient = createDbClient({ connectionString: env.DATABASE_URL });
  const build: BuildInfo = {
    version: env.BERTH_VERSION,
    gitRevision: env.BERTH_GIT_REVISION,
    databaseUrl: env.DATABASE_URL,
  };
  return {
    router: appRouter,
    createContext: () => ({ db, build }),
    close: () => db.$disconnect(),
  };
}
