// The worker process: runs the reaper, the orphan sweep, the periodic checkpoint, the sweep of
// captures killed mid-write and, once isolation works, the rotation of unisolated boxes. Any
// number of workers may run against one database: every sweep claims its leases with SKIP
// LOCKED, and a dead capture's blob is taken under its lock.
import { resolve } from "node:path";
import { createDbClient } from "@berth/db";
import {
  AbandonedCaptureSystem,
  backendDrainPort,
  backendsFromEnv,
  captureUnavailableDrainPort,
  CheckpointSystem,
  type ConfiguredBackends,
  DatabaseClock,
  ensureInstallationId,
  archiveStoreFromEnv,
  IsolationRotationSystem,
  leaseConfigFromEnv,
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
// The data folder and the database must name the same installation, or nothing starts: two
// Berths sharing either would sweep each other's boxes as orphans.
let installationId: string;
try {
  installationId = await ensureInstallationId({ db, dataDir: resolve(env.BERTH_DATA_DIR) });
} catch (error) {
  // The same fatal line as any failed start; `err` says why (a mismatch names both ids).
  logger.fatal({ err: error }, "worker failed");
  await db.$disconnect();
  process.exit(1);
}
// Kubernetes boxes too need BERTH_SECRET (their tokens derive from it); a cluster configuration
// that cannot be loaded stops the start, saying what to set.
let configured: ConfiguredBackends;
try {
  configured = backendsFromEnv({
    env,
    local:
      env.BERTH_SECRET === undefined
        ? undefined
        : {
            dataDir: resolve(env.BERTH_DATA_DIR),
            secret: env.BERTH_SECRET,
            isolation: "auto",
            logger,
            installationId: () => Promise.resolve(installationId),
          },
    kubernetes:
      env.BERTH_SECRET === undefined
        ? undefined
        : { secret: env.BERTH_SECRET, installationId: () => Promise.resolve(installationId) },
  });
} catch (error) {
  logger.fatal({ err: error }, "worker failed");
  await db.$disconnect();
  process.exit(1);
}
const { registry: backends, local } = configured;
const anyBackend = backends.kinds().length > 0;
// A folder or a bucket, as BERTH_ARCHIVE_URL / BERTH_ARCHIVE_DIR say.
const store = archiveStoreFromEnv(env, db);
const archiver = !anyBackend
  ? undefined
  : new WorkspaceArchiver({
      resources,
      backends,
      store,
      keepRevisions: env.BERTH_ARCHIVE_KEEP,
      // Drains' and checkpoints' progress, for whoever follows the session on any replica.
      onProgress: progressRecorder(db),
    });
const reaper = new ReaperSystem({
  resources,
  drainPort:
    archiver === undefined ? captureUnavailableDrainPort : backendDrainPort({ backends, archiver }),
  // A drained Kubernetes box is kept suspended (its disk resumes without a restore) this long.
  suspendedTtlMs: env.BERTH_KUBE_SUSPENDED_TTL_MS,
});
const orphans = !anyBackend ? undefined : new OrphanSweepSystem({ resources, backends });
// Boxes left unisolated (started while bubblewrap did not work) are replaced as they drain once a
// box started here would get bubblewrap: this backend probes it again every minute until it does.
const rotation =
  local === undefined
    ? undefined
    : new IsolationRotationSystem({ resources, isolationNow: () => local.resolveIsolation() });
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
