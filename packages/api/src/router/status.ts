import type { TRPCRouterRecord } from "@trpc/server";
import { readDatabaseStatus } from "../status/databaseStatus.ts";
import { seesDeploymentDetails } from "../status/healthAudience.ts";
import { publicProcedure } from "../trpc.ts";
import type { RouterFixtures } from "../fixtures.ts";

export const statusRouter = {
  /**
   * What is running: Berth's build, the database engine and its latest migration, for anyone;
   * the database's server version and (redacted) URL only for workspace admins and owners.
   */
  get: publicProcedure.query(async ({ ctx }) => {
    const [status, detailed] = await Promise.all([
      readDatabaseStatus({ db: ctx.db, databaseUrl: ctx.build.databaseUrl }),
      seesDeploymentDetails(ctx),
    ]);
    const { engine, version, url } = status.database;
    return {
      version: ctx.build.version,
      gitRevision: ctx.build.gitRevision,
      database: { engine, ...(detailed ? { version, url } : {}) },
      latestMigration: status.latestMigration,
    };
  }),
} satisfies TRPCRouterRecord;

export const statusFixtures: RouterFixtures<typeof statusRouter> = {
  get: { access: "public", scope: "own", input: () => undefined },
};
