// The worker process: runs the reaper (and, later, the archiver and pool upkeep). Any number of
// workers may run against one database: every sweep claims its leases with SKIP LOCKED.
import { resolve } from "node:path";
import { createDbClient } from "@berth/db";
import {
  backendDrainPort,
  captureUnavailableDrainPort,
  DatabaseClock,
  leaseConfigFromEnv,
  LocalBackend,
  OrphanSweepSystem,
  ReaperSystem,
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
// Local boxes are managed only with BERTH_SECRET (their tokens derive from it). Until durable
// archives exist, capture is unavailable: a draining box that admitted writes waits rather than
// be stopped with its workspace uncaptured.
const backend =
  env.BERTH_SECRET === undefined
    ? undefined
    : new LocalBackend({
        dataDir: resolve(env.BERTH_DATA_DIR),
        secret: env.BERTH_SECRET,
        isolation: "auto",
        logger,
      });
const reaper = new ReaperSystem({
  resources,
  drainPort: backend === undefined ? captureUnavailableDrainPort : backendDrainPort(backend),
});
const orphans = backend === undefined ? undefined : new OrphanSweepSystem({ resources, backend });

try {
  await runWorker({
    db,
    logger,
    reaper,
    orphans,
    reaperPeriodMs: env.BERTH_REAPER_PERIOD_MS,
    launcherPid: env.BERTH_LAUNCHER_PID,
  });
} catch (error) {
  logger.fatal({ err: error }, "worker failed");
  process.exitCode = 1;
} finally {
  await db.$disconnect();
}
