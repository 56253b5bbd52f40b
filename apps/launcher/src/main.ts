// `npm start`: runs Berth on one machine — the dashboard + API (Next.js) and the worker — on
// DATABASE_URL, or on an embedded PGlite database that this process owns.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { redactDatabaseUrl } from "@berth/db";
import { applyMigrations } from "@berth/db/migrate";
import { defaultBoxdEntry } from "@berth/sandbox";
import { formatEnvProblems } from "@berth/validators";
import { pino } from "pino";
import { readBuildInfo } from "./buildInfo.ts";
import { startChild, stopChild, type RunningChild } from "./children.ts";
import { acquireDataDirLock, DataDirLockedError, type DataDirLock } from "./dataDirLock.ts";
import { startDemoBox } from "./demoBox.ts";
import { ensureDemoWorkspace } from "./demoWorkspace.ts";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "./embeddedDatabase.ts";
import { inheritedEnv, readLauncherEnv } from "./env.ts";
import { waitUntilServing } from "./readiness.ts";
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
let stopping = false;

async function shutdown(code: number, reason: string): Promise<never> {
  if (!stopping) {
    stopping = true;
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
  }
  process.exit(code);
}

process.once("SIGINT", () => void shutdown(0, "SIGINT"));
process.once("SIGTERM", () => void shutdown(0, "SIGTERM"));

try {
  if (!existsSync(join(webDir, ".next", "BUILD_ID"))) {
    throw new Error(
      "The dashboard is not built. Run `npm start` (it builds first) or `pnpm turbo run build`.",
    );
  }
  let databaseUrl = env.DATABASE_URL;
  if (databaseUrl === undefined) {
    lock = await acquireDataDirLock(env.dataDir);
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
  const secret = await resolveSecret({ fromEnv: env.BERTH_SECRET, dataDir: env.dataDir });
  const demo =
    env.BERTH_MODE === "demo"
      ? await ensureDemoWorkspace({ databaseUrl, secret, password: env.BERTH_DEMO_PASSWORD })
      : undefined;
  if (demo !== undefined && env.BERTH_DEMO_BOX === "on") {
    try {
      demoBox = await startDemoBox({
        databaseUrl,
        dataDir: env.dataDir,
        archiveDir: env.archiveDir,
        secret,
        logger,
      });
    } catch (error) {
      logger.warn({ err: error }, "no demo box this time; Berth runs without it");
    }
  }

  const publicUrl = env.BERTH_PUBLIC_URL ?? `http://${env.HOST}:${String(env.PORT)}`;
  const build = await readBuildInfo(repoRoot);
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
      env: { ...childEnv, PORT: String(env.PORT), HOST: env.HOST, NODE_ENV: "production" },
    },
  ];
  for (const spec of specs) {
    const child = startChild(spec, logger);
    children.push(child);
    void child.exited.then(({ code, signal }) => {
      if (!stopping)
        void shutdown(
          1,
          `${child.name} exited unexpectedly (code ${String(code)}, signal ${String(signal)})`,
        );
    });
  }

  const url = `http://${env.HOST}:${env.PORT}`;
  await waitUntilServing({ url, timeoutMs: 60_000, stopped: () => stopping });
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
  if (error instanceof DataDirLockedError) {
    logger.error({ holderPid: error.holderPid, dataDir: error.dataDir }, error.message);
  } else {
    logger.error({ err: error }, error instanceof Error ? error.message : String(error));
  }
  await shutdown(1, "start failed");
}
