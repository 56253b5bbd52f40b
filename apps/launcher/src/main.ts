// `npm start`: runs Berth on one machine — the dashboard + API (Next.js) and the worker — on
// DATABASE_URL, or on an embedded PGlite database that this process owns.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { checkCanListen, ListenFailedError, newLaunchNonce } from "@berth/launch-protocol";
import { formatEnvProblems } from "@berth/validators";
import { pino } from "pino";
import { readBuildInfo } from "./buildInfo.ts";
import { startChild, stopChild, type RunningChild } from "./children.ts";
import { acquireDataDirLock, DataDirLockedError, type DataDirLock } from "./dataDirLock.ts";
import type { EmbeddedDatabase } from "./embeddedDatabase.ts";
import { inheritedEnv, readLauncherEnv } from "./env.ts";
import { ForeignServerError, waitUntilServing } from "./readiness.ts";
import { resolveSecret } from "./secret.ts";

const parsed = readLauncherEnv();
if (!parsed.success) {
  process.stderr.write(formatEnvProblems("berth start", parsed.error));
  process.exit(1);
}
const env = parsed.data;
const logger = pino({ level: env.LOG_LEVEL, base: { service: "launcher", pid: process.pid } });
const repoRoot = resolve(import.meta.dirname, "..", "..", "..");
const webDir = join(repoRoot, "apps", "web");
const workerDir = join(repoRoot, "apps", "worker");

let lock: DataDirLock | undefined;
let embedded: EmbeddedDatabase | undefined;
let demoBox: { release(): Promise<void> } | undefined;
const children: RunningChild[] = [];
let stopping: Promise<never> | undefined;

/**
 * Stops the children, the embedded database and the lock, then exits. Only the first call
 * stops; later ones (a Ctrl-C reaches us from the terminal and again from npm; a child exits
 * while the start fails) wait for it, never exit halfway through.
 */
function shutdown(code: number, reason: string): Promise<never> {
  stopping ??= stop(code, reason);
  return stopping;
}

async function stop(code: number, reason: string): Promise<never> {
  logger.info({ reason }, "stopping Berth");
  await demoBox?.release().catch((error: unknown) => {
    logger.warn(
      { err: error },
      "could not release the demo box's holder; it drains when the holder expires",
    );
  });
  await Promise.all(children.map((child) => stopChild(child, logger)));
  await embedded?.close();
  await lock?.release();
  logger.info("stopped");
  process.exit(code);
}

// `on`, not `once`: a second signal with no listener would kill us mid-stop.
process.on("SIGINT", () => void shutdown(0, "SIGINT"));
process.on("SIGTERM", () => void shutdown(0, "SIGTERM"));

try {
  if (!existsSync(join(webDir, ".next", "BUILD_ID"))) {
    throw new Error(
      "The dashboard is not built. Run `npm start` (it builds first) or `pnpm turbo run build`.",
    );
  }
  // Always, not only for the embedded database: the folder holds the boxes (and, by default,
  // the archives and the secret), which two launchers must never manage at once.
  lock = await acquireDataDirLock(env.dataDir);
  // Before anything starts: a port in use stops the start here, with what to do.
  await checkCanListen(env.HOST, env.PORT);
  // Loaded only now: the database and sandbox code takes seconds to load, and a refused start
  // (above) should say so at once. The demo's (the API's) only in demo mode, further down.
  const [
    { createDbClient, redactDatabaseUrl },
    { applyMigrations },
    { defaultBoxdEntry, ensureInstallationId },
    { startEmbeddedDatabase },
  ] = await Promise.all([
    import("@berth/db"),
    import("@berth/db/migrate"),
    import("@berth/sandbox"),
    import("./embeddedDatabase.ts"),
  ]);
  let databaseUrl = env.DATABASE_URL;
  if (databaseUrl === undefined) {
    embedded = await startEmbeddedDatabase(env.dataDir);
    databaseUrl = embedded.url;
    logger.info(
      { dataDir: env.dataDir, database: databaseUrl },
      "embedded database (PGlite) serving",
    );
  } else {
    logger.info({ database: redactDatabaseUrl(databaseUrl) }, "using DATABASE_URL");
  }
  const migrations = await applyMigrations({
    connectionString: databaseUrl,
    onEvent: (event) => logger.info(event, `migrations: ${event.kind}`),
  });
  logger.info(
    { applied: migrations.applied.length, alreadyApplied: migrations.alreadyApplied.length },
    "migrations up to date",
  );
  // The data folder and the database must name the same installation (first start: both get a
  // new id), or nothing starts: two Berths sharing either would sweep each other's boxes.
  const installationDb = createDbClient({ connectionString: databaseUrl, maxConnections: 1 });
  const installationId = await ensureInstallationId({
    db: installationDb,
    dataDir: env.dataDir,
  }).finally(() => installationDb.$disconnect());
  logger.info({ installationId }, "installation");
  const secret = await resolveSecret({ fromEnv: env.BERTH_SECRET, dataDir: env.dataDir });
  const { launcherBackends } = await import("./backends.ts");
  const backends = launcherBackends({
    env: inheritedEnv(),
    dataDir: env.dataDir,
    secret,
    installationId,
    logger,
  });
  const demo =
    env.BERTH_MODE === "demo"
      ? await import("./demoWorkspace.ts").then(({ ensureDemoWorkspace }) =>
          ensureDemoWorkspace({ databaseUrl, secret, password: env.BERTH_DEMO_PASSWORD }),
        )
      : undefined;
  if (demo !== undefined && env.BERTH_DEMO_BOX === "on") {
    try {
      const { startDemoBox } = await import("./demoBox.ts");
      demoBox = await startDemoBox({
        databaseUrl,
        backends: backends.registry,
        defaultBackend: backends.defaultBackend,
        archiveEnv: {
          ...inheritedEnv(),
          BERTH_DATA_DIR: env.dataDir,
          BERTH_ARCHIVE_DIR: env.archiveDir,
        },
        logger,
      });
    } catch (error) {
      logger.warn({ err: error }, "no demo box this time; Berth runs without it");
    }
  }

  const publicUrl = env.BERTH_PUBLIC_URL ?? `http://${env.HOST}:${String(env.PORT)}`;
  const build = await readBuildInfo(repoRoot);
  // Given to the web child alone: it answers the readiness probe's challenges with it.
  const launchNonce = newLaunchNonce();
  const childEnv = {
    ...inheritedEnv(),
    DATABASE_URL: databaseUrl,
    BERTH_DATA_DIR: env.dataDir,
    BERTH_ARCHIVE_DIR: env.archiveDir,
    BERTH_SECRET: secret,
    BERTH_PUBLIC_URL: publicUrl,
    BERTH_BOXD_ENTRY: defaultBoxdEntry(),
    BERTH_VERSION: build.version,
    BERTH_GIT_REVISION: build.gitRevision,
    BERTH_LAUNCHER_PID: String(process.pid),
    LOG_LEVEL: env.LOG_LEVEL,
    NEXT_TELEMETRY_DISABLED: "1",
  };
  const specs = [
    {
      name: "worker",
      command: process.execPath,
      args: ["--import", "tsx", "src/main.ts"],
      cwd: workerDir,
      env: childEnv,
    },
    {
      // Berth's web server (apps/web/src/serve), not `next start`: it sets each request's
      // client address from the socket and BERTH_TRUSTED_PROXIES, which sign-in throttling reads.
      name: "web",
      command: process.execPath,
      args: ["--import", "tsx", "src/serve/main.ts"],
      cwd: webDir,
      env: {
        ...childEnv,
        PORT: String(env.PORT),
        HOST: env.HOST,
        NODE_ENV: "production",
        BERTH_LAUNCH_NONCE: launchNonce,
      },
    },
  ];
  // A stop that came while we were getting here must not be outlived by children started now.
  if (stopping !== undefined) await stopping;
  for (const spec of specs) {
    const child = startChild(spec, logger);
    children.push(child);
    void child.exited.then(({ code, signal }) => {
      if (stopping === undefined)
        void shutdown(
          1,
          `${child.name} exited unexpectedly (code ${String(code)}, signal ${String(signal)})`,
        );
    });
  }

  const url = `http://${env.HOST}:${env.PORT}`;
  await waitUntilServing({
    url,
    nonce: launchNonce,
    timeoutMs: 60_000,
    stopped: () => stopping !== undefined,
  });
  logger.info(
    { url, version: build.version, gitRevision: build.gitRevision },
    `Berth is running at ${url} (Ctrl-C stops it)`,
  );
  if (demo !== undefined)
    logger.info(
      { url: publicUrl, email: demo.email, password: demo.password },
      `Sign in at ${publicUrl}/sign-in as ${demo.email} with password ${demo.password}`,
    );
} catch (error) {
  // The refusals a user acts on are one line saying what to do; anything else keeps its stack.
  if (error instanceof DataDirLockedError) {
    logger.error({ holderPid: error.holderPid, dataDir: error.dataDir }, error.message);
  } else if (error instanceof ListenFailedError) {
    logger.error({ host: error.host, port: error.port, failure: error.failure }, error.message);
  } else if (error instanceof ForeignServerError) {
    logger.error({ url: error.url }, error.message);
  } else {
    logger.error({ err: error }, error instanceof Error ? error.message : String(error));
  }
  await shutdown(1, "start failed");
}
