import { createDbClient } from "@berth/db";
import {
  ArchiveRestorer,
  DatabaseClock,
  type BackendKind,
  type BackendRegistry,
  defaultLeaseConfig,
  archiveStoreEnvSchema,
  archiveStoreFromEnv,
  LeaseSystem,
  SpawnerSystem,
} from "@berth/sandbox";
import type { Logger } from "pino";

const HOLDER = "launcher:demo";
/** Well inside the viewer TTL (90 s), so the reaper never takes the launcher's holder. */
const TOUCH_EVERY_MS = 30_000;

/**
 * The demo workspace's session gets a real box at start, on BERTH_BACKEND's backend: the launcher holds it as a
 * viewer while Berth runs, so it stays warm; released at stop, it drains after the idle grace.
 * A box left by an earlier start is resumed (boxes outlive the control plane).
 */
export async function startDemoBox(options: {
  databaseUrl: string;
  /** The backends web and worker configure (launcherBackends). */
  backends: BackendRegistry;
  /**
   * The backend a new demo session names (BERTH_BACKEND); a demo session from an earlier start
   * keeps the one it names.
   */
  defaultBackend: BackendKind;
  /**
   * The archive store's settings as the web and worker children get them (BERTH_ARCHIVE_URL,
   * BERTH_ARCHIVE_DIR, BERTH_S3_*): the demo box restores from the store they capture into.
   */
  archiveEnv: Readonly<Record<string, string | undefined>>;
  logger: Logger;
}): Promise<{ instanceId: string; release(): Promise<void> }> {
  const db = createDbClient({ connectionString: options.databaseUrl, maxConnections: 2 });
  const resources = { db, clock: new DatabaseClock(db), config: defaultLeaseConfig };
  const leases = new LeaseSystem(resources);
  const { backends } = options;
  // The demo box may come back from an archive (the worker drained it while Berth was stopped).
  const restorer = new ArchiveRestorer({
    db,
    store: archiveStoreFromEnv(archiveStoreEnvSchema.parse(options.archiveEnv), db),
  });
  const spawner = new SpawnerSystem({ resources, backends, restorer });
  const workspace = await db.workspace.findUniqueOrThrow({ where: { slug: "demo" } });
  const session =
    (await db.session.findFirst({ where: { workspaceId: workspace.id, title: "Demo" } })) ??
    (await db.session.create({
      data: {
        workspaceId: workspace.id,
        title: "Demo",
        sandboxGroupId: crypto.randomUUID(),
        backend: options.defaultBackend,
      },
    }));
  const acquired = await leases.acquire({
    workspaceId: workspace.id,
    sessionId: session.id,
    kind: "viewer",
    holderId: HOLDER,
  });
  let instanceId: string;
  switch (acquired.role) {
    case "spawner":
      instanceId = (await spawner.establish(acquired.lease)).instanceId;
      break;
    case "attached":
    case "rearmed":
      instanceId = acquired.lease.instanceId ?? "";
      await backends.backendFor(acquired.lease).resume(instanceId, { epoch: acquired.lease.epoch });
      break;
    case "fenced":
    case "blocked":
      await db.$disconnect();
      throw new Error(
        `the demo box is unavailable now (${acquired.role}: ${acquired.reason}); Berth runs without it`,
      );
  }
  options.logger.info({ instanceId, sessionId: session.id }, "demo box warm");
  const holder = {
    workspaceId: workspace.id,
    leaseId: acquired.lease.id,
    kind: "viewer",
    holderId: HOLDER,
  } as const;
  const keepAlive = setInterval(() => {
    leases.touch(holder).catch((error: unknown) => {
      options.logger.warn({ err: error }, "could not refresh the demo box's holder");
    });
  }, TOUCH_EVERY_MS);
  keepAlive.unref();
  return {
    instanceId,
    async release() {
      clearInterval(keepAlive);
      await leases.release({
        workspaceId: workspace.id,
        leaseId: acquired.lease.id,
        kind: "viewer",
        holderId: HOLDER,
      });
      await db.$disconnect();
    },
  };
}
