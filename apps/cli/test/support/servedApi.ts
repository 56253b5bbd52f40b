import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiEnvSchema, createBerthApi, serveApi, type BerthApi, type ServedApi } from "@berth/api";
import { seedTokenOwner } from "@berth/client/testing";
import { createDbClient, type DbClient } from "@berth/db";
import { removeLocalBoxes } from "@berth/sandbox/testing";
import { freePort, useTestDatabase } from "@berth/testkit";
import { afterAll, beforeAll } from "vitest";
import { runCli, type CliEnvironment, type CliRun } from "./runCli.ts";

const secret = "cli-test-secret-0123456789abcdef-01234567";

export interface CliWorld {
  readonly url: string;
  readonly db: DbClient;
  readonly dataDir: string;
  readonly secret: string;
  readonly workspaceId: string;
  readonly email: string;
  readonly password: string;
  /** An admin-role API token of the workspace's owner, made through the API. */
  readonly token: string;
  /** A session made directly in the database (its own sandbox group). */
  newSession(): Promise<string>;
  /** A folder of its own for credentials.json. */
  configDir(): Promise<string>;
  /** Runs the CLI signed in through the environment (BERTH_URL, BERTH_TOKEN). */
  berth(
    args: readonly string[],
    options?: { env?: Partial<CliEnvironment>; input?: string },
  ): Promise<CliRun>;
  /** Drops every open connection (server-sent event streams too) and serves again on the same port. */
  restartHttp(options: { downMs: number }): Promise<void>;
}

/**
 * The real API over a test database, served over real HTTP on a loopback port, with local boxes
 * (real boxd) in a temporary data folder that is emptied afterwards; as packages/client's suite.
 */
export function useServedApi(): { readonly current: CliWorld } {
  const database = useTestDatabase();
  let world: CliWorld | undefined;
  let api: BerthApi | undefined;
  let served: ServedApi | undefined;
  const scratch: string[] = [];
  beforeAll(async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "berth-cli-"));
    scratch.push(dataDir);
    const port = await freePort();
    const url = `http://127.0.0.1:${String(port)}`;
    const berthApi = createBerthApi(
      apiEnvSchema.parse({
        DATABASE_URL: database.current.url,
        BERTH_SECRET: secret,
        BERTH_DATA_DIR: dataDir,
        BERTH_PUBLIC_URL: url,
      }),
    );
    api = berthApi;
    served = await serveApi(berthApi, { port });
    const db = createDbClient({ connectionString: database.current.url, maxConnections: 2 });
    const { workspaceId, email, password, token } = await seedTokenOwner(db, {
      url,
      slug: "cli",
      role: "admin",
    });
    async function configDir() {
      const dir = await mkdtemp(join(tmpdir(), "berth-cli-config-"));
      scratch.push(dir);
      return dir;
    }
    world = {
      url,
      db,
      dataDir,
      secret,
      workspaceId,
      email,
      password,
      token,
      async newSession() {
        const session = await db.session.create({
          data: {
            workspaceId,
            sandboxGroupId: crypto.randomUUID(),
            backend: "local",
            title: "made by the test",
          },
        });
        return session.id;
      },
      configDir,
      async berth(args, options = {}) {
        return runCli(args, {
          env: {
            BERTH_CONFIG_DIR: await configDir(),
            BERTH_URL: url,
            BERTH_TOKEN: token,
            ...options.env,
          },
          ...(options.input === undefined ? {} : { input: options.input }),
        });
      },
      async restartHttp({ downMs }) {
        await served?.close();
        await new Promise((resolve) => setTimeout(resolve, downMs));
        served = await serveApi(berthApi, { port });
      },
    };
  }, 60_000);
  afterAll(async () => {
    await served?.close();
    await api?.close();
    if (world !== undefined) {
      await world.db.$disconnect();
      await removeLocalBoxes({ dataDir: world.dataDir, secret });
    }
    for (const dir of scratch) await rm(dir, { recursive: true, force: true });
  });
  return {
    get current() {
      if (world === undefined) throw new Error("useServedApi: read .current inside a test");
      return world;
    },
  };
}
