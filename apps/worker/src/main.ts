// The worker process: runs the reaper (and, later, the archiver and pool upkeep). Any number of
// workers may run against one database: every sweep claims its leases with SKIP LOCKED.
import { createDbClient } from "@berth/db";
import {
  captureUnavailableDrainPort,
  DatabaseClock,
  leaseConfigFromEnv,
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
// Until durable archives exist, capture is unavailable: draining boxes wait rather than be
// stopped with their workspace uncaptured.
const reaper = new ReaperSystem({
  resources: { db, clock: new DatabaseClock(db), config: leaseConfigFromEnv(env) },
  drainPort: captureUnavailableDrainPort,
});

try {
  await runWorker({
    db,
    logger,
    reaper,
    reaperPeriodMs: env.BERTH_REAPER_PERIOD_MS,
    launcherPid: env.BERTH_LAUNCHER_PID,
  });
} catch (error) {
  logger.fatal({ err: error }, "worker failed");
  process.exitCode = 1;
} finally {
  await db.$disconnect();
}
