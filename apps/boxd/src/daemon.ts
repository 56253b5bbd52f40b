import { formatEnvProblems } from "@berth/validators";
import { pino } from "pino";
import { readBoxdEnv } from "./env.ts";
import { startBoxd } from "./server/boxd.ts";
import { readBoxdIdentity } from "./server/token.ts";

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
    // A warm-pool boxd names its instance once bound (bind.ts adds it to this logger).
    base: {
      service: "boxd",
      pid: process.pid,
      ...(env.BOXD_POOL_KEY_FILE === undefined ? { instanceId: env.BOXD_INSTANCE_ID } : {}),
    },
  });

  let boxd: Awaited<ReturnType<typeof startBoxd>>;
  try {
    boxd = await startBoxd({
      root: env.BOXD_ROOT,
      identity: readBoxdIdentity(env),
      podUid: env.BOXD_POD_UID,
      diskBytes: env.BOXD_DISK_BYTES,
      listen:
        env.BOXD_SOCKET === undefined
          ? { kind: "tcp", host: env.BOXD_HOST, port: env.BOXD_PORT }
          : {
              kind: "socket",
              path: env.BOXD_SOCKET,
              ...(env.BOXD_SOCKET_DIR_FD === undefined ? {} : { dirFd: env.BOXD_SOCKET_DIR_FD }),
            },
      ...(env.BOXD_COMMAND_USER === undefined
        ? {}
        : {
            user: {
              ...env.BOXD_COMMAND_USER,
              ...(env.BOXD_COMMAND_PROCESSES === undefined
                ? {}
                : { processes: env.BOXD_COMMAND_PROCESSES }),
            },
          }),
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

  // The line a launcher waits for: it carries the bound port (BOXD_PORT=0 picks one) or the
  // socket. Written after the listeners: its reader may signal at once, and a signal with no
  // listener yet would kill boxd instead of stopping it.
  const { address } = boxd;
  logger.info(
    address.kind === "tcp"
      ? {
          host: address.host,
          port: address.port,
          url: `http://${address.host}:${String(address.port)}`,
          root: env.BOXD_ROOT,
        }
      : { socket: address.path, root: env.BOXD_ROOT },
    "listening",
  );
}
