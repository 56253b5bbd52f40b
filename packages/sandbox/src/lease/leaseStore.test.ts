import { createDbClient, Prisma, type DbClient } from "@berth/db";
import { createTestDatabase } from "@berth/testkit";
import { describe, expect, it } from "vitest";
import { defaultLeaseConfig } from "./config.ts";
import { callLeaseFunctionOnce, leaseCall } from "./leaseStore.ts";

const ttl = defaultLeaseConfig.leaseTtlMs;
const warming = defaultLeaseConfig.warmingTimeoutMs;

async function newSession(db: DbClient, workspaceId: string): Promise<string> {
  const session = await db.session.create({
    data: { workspaceId, sandboxGroupId: crypto.randomUUID(), backend: "local" },
  });
  return session.id;
}

describe("leaseCall", () => {
  it("sends a Date as Prisma.sql does, so both paths agree on a server whose TimeZone is not UTC", async () => {
    await using database = await createTestDatabase();
    const setup = createDbClient({ connectionString: database.url, maxConnections: 1 });
    const [{ name }] = await setup.$queryRaw<[{ name: string }]>`SELECT current_database() AS name`;
    await setup.$executeRawUnsafe(`ALTER DATABASE "${name}" SET timezone = 'America/New_York'`);
    await setup.$disconnect();

    const db = createDbClient({ connectionString: database.url, maxConnections: 2 });
    try {
      const workspace = await db.workspace.create({ data: { slug: "tz", name: "TZ" } });
      const now = new Date("2000-07-01T12:00:00.250Z");
      const [viaTag, viaSql] = await Promise.all([
        newSession(db, workspace.id).then(
          (sessionId) => leaseCall(db)`
          berth_lease_acquire(${workspace.id}::uuid, ${sessionId}::uuid, ${"direct"}, ${"direct:a"},
            ${null}::text, ${ttl}::int, ${warming}::int, ${null}::int, ${now}::timestamptz)`,
        ),
        newSession(db, workspace.id).then((sessionId) =>
          callLeaseFunctionOnce(
            db,
            Prisma.sql`berth_lease_acquire(${workspace.id}::uuid, ${sessionId}::uuid, ${"direct"},
              ${"direct:b"}, ${null}::text, ${ttl}::int, ${warming}::int, ${null}::int, ${now}::timestamptz)`,
          ),
        ),
      ]);
      expect(viaTag.outcome).toBe("spawner");
      expect(viaTag.lease?.expiresAt).toEqual(viaSql.lease?.expiresAt);
    } finally {
      await db.$disconnect();
    }
  });
});
