import { readMigrationFiles } from "@berth/db/migrate";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { useS3Server, useTestDatabase } from "@berth/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createDbClient, type DbClient } from "@berth/db";
import type { BerthApi } from "../src/index.ts";
import { callerAs, createTestApi, type Credential } from "./support/testApi.ts";
import { seedWorkspace, type SeededWorkspace } from "./support/world.ts";

const database = useTestDatabase();

describe("status.get", () => {
  let api: BerthApi;
  let db: DbClient;
  let world: SeededWorkspace;
  let dataDir: string;
  beforeAll(async () => {
    const url = new URL(database.current.url);
    url.password = "s3cret-pass";
    dataDir = await mkdtemp(join(tmpdir(), "berth-status-"));
    api = createTestApi(url.toString(), {
      env: { BERTH_VERSION: "1.2.3", BERTH_GIT_REVISION: "abc1234" },
      dataDir,
    });
    db = createDbClient({ connectionString: database.current.url, maxConnections: 1 });
    world = await seedWorkspace(api, db, "status");
  });
  afterAll(async () => {
    await db.$disconnect();
    await api.close();
    await rm(dataDir, { recursive: true, force: true });
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
      archiveStore: { kind: "filesystem", reachable: true },
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
      expect(detailed.archiveStore).toEqual({
        kind: "filesystem",
        reachable: true,
        location: pathToFileURL(join(dataDir, "archives")).href,
      });
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

describe("status.get on the S3 archive store", () => {
  const s3 = useS3Server();
  let api: BerthApi;
  let db: DbClient;
  let world: SeededWorkspace;
  beforeAll(async () => {
    const server = s3.current;
    // Credentials come from the AWS chain, as in production: here its first link, the env.
    vi.stubEnv("AWS_ACCESS_KEY_ID", server.credentials.accessKeyId);
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", server.credentials.secretAccessKey);
    api = createTestApi(database.current.url, {
      env: {
        BERTH_ARCHIVE_URL: `s3://${server.bucket}/status`,
        BERTH_S3_ENDPOINT: server.endpoint,
        BERTH_S3_REGION: server.region,
        BERTH_S3_FORCE_PATH_STYLE: "true",
      },
    });
    db = createDbClient({ connectionString: database.current.url, maxConnections: 1 });
    world = await seedWorkspace(api, db, "status-s3");
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await db.$disconnect();
    await api.close();
  });

  const store = async (credential: Credential) =>
    (await (await callerAs(api, credential)).status.get()).archiveStore;

  it("tells anyone whether the bucket answers, and only admins where it is and what is wrong", async () => {
    const { bucket, endpoint } = s3.current;
    expect(await store("anonymous")).toEqual({ kind: "s3", reachable: true });
    expect(await store({ token: world.adminToken })).toEqual({
      kind: "s3",
      reachable: true,
      location: `s3://${bucket}/status`,
      endpoint,
    });

    await s3.current.stop();
    try {
      expect(await store("anonymous")).toEqual({ kind: "s3", reachable: false });
      expect(await store({ token: world.memberToken })).toEqual({ kind: "s3", reachable: false });
      const detailed = await store({ cookie: world.owner.cookie });
      expect(detailed).toMatchObject({ kind: "s3", reachable: false, endpoint });
      expect(detailed && "problem" in detailed ? detailed.problem : "").toMatch(
        /check BERTH_S3_ENDPOINT/,
      );
    } finally {
      await s3.current.restart();
    }
    expect(await store("anonymous")).toEqual({ kind: "s3", reachable: true });
  });
});
