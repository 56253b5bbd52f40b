import { formatEnvProblems } from "@berth/validators";
import { pino } from "pino";
import { readBoxdEnv } from "./env.ts";
import { startBoxd } from "./server/boxd.ts";

/** Starts boxd from its environment: serves until SIGTERM or SIGINT, then exits. */
export async function runDaemon(): Promise<void> {
  const parsed = readBoxdEnv();
  if (!parsed.success) {
    process.stderr.write(formatEnvProblems("boxd", parsed.error));
    process.exit(1);
  }
  const env = parsed.data;
  const logger = pino({
    level: env.LOG_LEVEL,
    base: { service: "boxd", pid: process.pid, instanceId: env.BOXD_INSTANCE_ID },
  });

  let boxd: Awaited<ReturnType<typeof startBoxd>>;
  try {
    boxd = await startBoxd({
      root: env.BOXD_ROOT,
      token: env.BOXD_TOKEN,
      instanceId: env.BOXD_INSTANCE_ID,
      host: env.BOXD_HOST,
      port: env.BOXD_PORT,
      logger,
    });
  } catch (error) {
    logger.fatal({ err: error, root: env.BOXD_ROOT }, "boxd could not start");
    process.exit(1);
  }

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    boxd.stop().then(
      () => {
        logger.info("stopped");
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, "stopping failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);

  // The line a launcher waits for: it carries the bound port (BOXD_PORT=0 picks one). Written
  // after the listeners: its reader may signal at once, and a signal with no listener yet would
  // kill boxd instead of stopping it.
  logger.info(
    {
      host: boxd.host,
      port: boxd.port,
      url: `http://${boxd.host}:${boxd.port}`,
      root: env.BOXD_ROOT,
    },
    "listening",
  );
}
