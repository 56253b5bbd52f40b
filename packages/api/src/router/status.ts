import type { ArchiveStoreStatus } from "@berth/sandbox";
import type { TRPCRouterRecord } from "@trpc/server";
import { readDatabaseStatus } from "../status/databaseStatus.ts";
import { seesDeploymentDetails } from "../status/healthAudience.ts";
import { publicProcedure } from "../trpc.ts";
import type { RouterFixtures } from "../fixtures.ts";

export const statusRouter = {
  /**
   * What is running: Berth's build, the database engine and its latest migration, and the
   * archive store's kind and whether it answers, for anyone; where the database and the store
   * are (and what an unreachable store's problem is) only for workspace admins and owners.
   */
  get: publicProcedure.query(async ({ ctx }) => {
    const [status, store, detailed] = await Promise.all([
      readDatabaseStatus({ db: ctx.db, databaseUrl: ctx.build.databaseUrl }),
      ctx.boxes.archiveStore(),
      seesDeploymentDetails(ctx),
    ]);
    const { engine, version, url } = status.database;
    return {
      version: ctx.build.version,
      gitRevision: ctx.build.gitRevision,
      database: { engine, ...(detailed ? { version, url } : {}) },
      latestMigration: status.latestMigration,
      archiveStore: store === null ? null : archiveStoreView(store, detailed),
    };
  }),
} satisfies TRPCRouterRecord;

/** What a caller is told of the archive store: its kind and health; the rest to admins only. */
interface ArchiveStoreView {
  readonly kind: ArchiveStoreStatus["kind"];
  readonly reachable: boolean;
  /** `file:///…` or `s3://bucket/prefix`. */
  readonly location?: string;
  readonly endpoint?: string;
  /** Why it does not answer, and what to check. */
  readonly problem?: string;
}

function archiveStoreView(store: ArchiveStoreStatus, detailed: boolean): ArchiveStoreView {
  const { kind, reachable } = store;
  if (!detailed) return { kind, reachable };
  return {
    kind,
    reachable,
    location: store.location,
    ...(store.endpoint === undefined ? {} : { endpoint: store.endpoint }),
    ...(store.reachable ? {} : { problem: store.problem }),
  };
}

export const statusFixtures: RouterFixtures<typeof statusRouter> = {
  get: { access: "public", scope: "own", input: () => undefined },
};
