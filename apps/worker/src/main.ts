// The worker process: runs the reaper, the orphan sweep, the periodic checkpoint, the sweep of
// captures killed mid-write and, once isolation works, the rotation of unisolated boxes. Any
// number of workers may run against one database: every sweep claims its leases with SKIP
// LOCKED, and a dead capture's blob is taken under its lock.
import { join, resolve } from "node:path";
import { createDbClient } from "@berth/db";
import {
  AbandonedCaptureSystem,
  backendDrainPort,
  captureUnavailableDrainPort,
  CheckpointSystem,
  DatabaseClock,
  FilesystemArchiveStore,
  IsolationRotationSystem,
  leaseConfigFromEnv,
  LocalBackend,
  OrphanSweepSystem,
  progressRecorder,
  ReaperSystem,
  WorkspaceArchiver,
} from "@berth/sandbox";
import { formatEnvProblems } from "@berth/validators";
import { pino } from "pino";
import { readWorkerEnv } from "./env.ts";
import { runWorker } from "./worker.ts";

const parsed = readWorkerEnv();
if (!parsed.success) {
  process.stderr.write(formatEnvProblems("berth worker", parsed.error));
  process.exit(1);
}
const env = parsed.data;
const logger = pino({ level: env.LOG_LEVEL, base: { service: "worker", pid: process.pid } });
const db = createDbClient({ connectionString: env.DATABASE_URL, maxConnections: 4 });
const resources = { db, clock: new DatabaseClock(db), config: leaseConfigFromEnv(env) };
// Local boxes are managed only with BERTH_SECRET (their tokens derive from it). Without it,
// capture is unavailable: a draining box that admitted writes waits rather than be stopped with
// its workspace uncaptured. With it, drains and checkpoints archive into the filesystem store.
const backend =
  env.BERTH_SECRET === undefined
    ? undefined
    : new LocalBackend({
        dataDir: resolve(env.BERTH_DATA_DIR),
        secret: env.BERTH_SECRET,
        isolation: "auto",
        logger,
      });
const store = new FilesystemArchiveStore({
  root: resolve(env.BERTH_ARCHIVE_DIR ?? join(env.BERTH_DATA_DIR, "archives")),
});
const archiver =
  backend === undefined
    ? undefined
    : new WorkspaceArchiver({
        resources,
        backend,
        store,
        keepRevisions: env.BERTH_ARCHIVE_KEEP,
        // Drains' and checkpoints' progress, for whoever follows the session on any replica.
        onProgress: progressRecorder(db),
      });
const reaper = new ReaperSystem({
  resources,
  drainPort:
    backend === undefined || archiver === undefined
      ? captureUnavailableDrainPort
      : backendDrainPort({ backend, archiver }),
});
const orphans = backend === undefined ? undefined : new OrphanSweepSystem({ resources, backend });
// Boxes left unisolated (started while bubblewrap did not work) are replaced as they drain once a
// box started here would get bubblewrap: this backend probes it again every minute until it does.
const rotation =
  backend === undefined
    ? undefined
    : new IsolationRotationSystem({ resources, isolationNow: () => backend.resolveIsolation() });
const checkpoints =
  archiver === undefined
    ? undefined
    : new CheckpointSystem({
        resources,
        archiver,
        quietMs: env.BERTH_CHECKPOINT_QUIET_MS,
        maxMs: env.BERTH_CHECKPOINT_MAX_MS,
      });

// Web processes capture into the same folder, so this runs even where this worker captures nothing.
const abandonedCaptures = new AbandonedCaptureSystem({ db, store });

try {
  await runWorker({
    db,
    logger,
    reaper,
    rotation,
    orphans,
    checkpoints,
    reaperPeriodMs: env.BERTH_REAPER_PERIOD_MS,
    abandonedCaptures,
    captureSweepPeriodMs: env.BERTH_CAPTURE_SWEEP_MS,
    launcherPid: env.BERTH_LAUNCHER_PID,
  });
} catch (error) {
  logger.fatal({ err: error }, "worker failed");
  process.exitCode = 1;
} finally {
  await db.$disconnect();
}
