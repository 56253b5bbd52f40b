import { readMigrationFiles } from "@berth/db/migrate";
import { useTestDatabase } from "@berth/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDbClient, type DbClient } from "@berth/db";
import type { BerthApi } from "../src/index.ts";
import { callerAs, createTestApi, type Credential } from "./support/testApi.ts";
import { seedWorkspace, type SeededWorkspace } from "./support/world.ts";

const database = useTestDatabase();

describe("status.get", () => {
  let api: BerthApi;
  let db: DbClient;
  let world: SeededWorkspace;
  beforeAll(async () => {
    const url = new URL(database.current.url);
    url.password = "s3cret-pass";
    api = createTestApi(url.toString(), {
      env: { BERTH_VERSION: "1.2.3", BERTH_GIT_REVISION: "abc1234" },
    });
    db = createDbClient({ connectionString: database.current.url, maxConnections: 1 });
    world = await seedWorkspace(api, db, "status");
  });
  afterAll(async () => {
    await db.$disconnect();
    await api.close();
  });

  const status = async (credential: Credential) => (await callerAs(api, credential)).status.get();

  it("tells anyone the build, the engine and the latest migration, and nothing of where the database is", async () => {
    const migrations = await readMigrationFiles();
    const anonymous = await status("anonymous");
    expect(anonymous).toEqual({
      version: "1.2.3",
      gitRevision: "abc1234",
      database: { engine: "PostgreSQL" },
      latestMigration: { name: migrations.at(-1)?.name, appliedAt: expect.any(Date) as Date },
    });
    // A member (signed in, or by token) is told no more than an anonymous caller.
    expect(await status({ cookie: world.member.cookie })).toEqual(anonymous);
    expect(await status({ token: world.memberToken })).toEqual(anonymous);
  });

  it("tells a workspace's owner, and an admin-role token, the server and the redacted URL", async () => {
    for (const credential of [{ cookie: world.owner.cookie }, { token: world.adminToken }]) {
      const detailed = await status(credential);
      expect(detailed.database.engine).toBe("PostgreSQL");
      expect(detailed.database.version).toMatch(/^PostgreSQL \d+/);
      expect(detailed.database.url).not.toContain("s3cret-pass");
      expect(detailed.database.url).toContain(database.current.name);
    }
  });

  it("tells a member once they are made an admin, read on every call", async () => {
    await db.membership.update({
      where: { workspaceId_userId: { workspaceId: world.workspaceId, userId: world.member.id } },
      data: { role: "admin" },
    });
    expect((await status({ cookie: world.member.cookie })).database.url).toContain(
      database.current.name,
    );
  });
});
