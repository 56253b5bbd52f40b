import type { TRPCRouterRecord } from "@trpc/server";
import { readDatabaseStatus } from "../status/databaseStatus.ts";
import { publicProcedure } from "../trpc.ts";
import type { RouterFixtures } from "../fixtures.ts";

export const statusRouter = {
  /** What is running: Berth's build, the database it talks to, and its latest migration. */
  get: publicProcedure.query(async ({ ctx }) => ({
    version: ctx.build.version,
    gitRevision: ctx.build.gitRevision,
    ...(await readDatabaseStatus({ db: ctx.db, databaseUrl: ctx.build.databaseUrl })),
  })),
} satisfies TRPCRouterRecord;

export const statusFixtures: RouterFixtures<typeof statusRouter> = {
  get: { access: "public", scope: "own", input: () => undefined },
};
