// The worker process: it will run the reaper and sweeps. Today it validates its environment,
// connects, says so, and stops cleanly on SIGTERM/SIGINT.
import { createDbClient } from "@berth/db";
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

try {
  await runWorker({ db, logger, launcherPid: env.BERTH_LAUNCHER_PID });
} catch (error) {
  logger.fatal({ err: error }, "worker failed");
  process.exitCode = 1;
} finally {
  await db.$disconnect();
}
