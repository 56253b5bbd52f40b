import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiEnvSchema, createBerthApi, serveApi, type BerthApi, type ServedApi } from "@berth/api";
import { createDbClient, type DbClient } from "@berth/db";
import { removeLocalBoxes } from "@berth/sandbox/testing";
import { useTestDatabase } from "@berth/testkit";
import { afterAll, beforeAll } from "vitest";
import { seedTokenOwner } from "../src/testing/index.ts";

const secret = "client-test-secret-0123456789abcdef-0123";

export interface ClientWorld {
  readonly url: string;
  readonly db: DbClient;
  readonly dataDir: string;
  readonly secret: string;
  readonly workspaceId: string;
  /** An admin-role API token of the workspace's owner, made through the API. */
  readonly token: string;
  /** A fresh session (its own sandbox group), as the typed client would make it. */
  newSession(): Promise<string>;
}

/**
 * The real API over a test database, served over real HTTP on a loopback port, with local boxes
 * (real boxd) in a temporary data folder that is emptied afterwards.
 */
export function useServedApi(): { readonly current: ClientWorld } {
  const database = useTestDatabase();
  let world: ClientWorld | undefined;
  let api: BerthApi | undefined;
  let served: ServedApi | undefined;
  beforeAll(async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "berth-client-"));
    api = createBerthApi(
      apiEnvSchema.parse({
        DATABASE_URL: database.current.url,
        BERTH_SECRET: secret,
        BERTH_DATA_DIR: dataDir,
      }),
    );
    served = await serveApi(api);
    const db = createDbClient({ connectionString: database.current.url, maxConnections: 4 });
    const { workspaceId, token } = await seedTokenOwner(db, {
      url: served.url,
      slug: "client",
      role: "admin",
      origin: "http://127.0.0.1:3000",
    });
    const url = served.url;
    world = {
      url,
      db,
      dataDir,
      secret,
      workspaceId,
      token,
      async newSession() {
        const session = await db.session.create({
          data: {
            workspaceId,
            sandboxGroupId: crypto.randomUUID(),
            backend: "local",
          },
        });
        return session.id;
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
  });
  return {
    get current() {
      if (world === undefined) throw new Error("useServedApi: read .current inside a test");
      return world;
    },
  };
}
