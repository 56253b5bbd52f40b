import { describe, expect, it } from "vitest";
import { createScratchDatabase } from "../test/scratchDatabase.ts";
import { createDbClient } from "./client.ts";
import { queryRows } from "./directQuery.ts";
import { preparedOnce } from "./preparedStatements.ts";

const ROW = preparedOnce(`
  SELECT $1::text AS label, $2::uuid AS id, $3::int AS n, $4::boolean AS flag,
         jsonb_build_object('n', $3::int, 'at', $5::timestamptz) AS doc,
         $5::timestamptz = $6::timestamptz AS same_instant`);

/** The backends serving this database right now, other than the asking one. */
async function backends(url: string): Promise<number> {
  const observer = createDbClient({ connectionString: url, maxConnections: 1 });
  try {
    const [row] = await observer.$queryRawUnsafe<{ n: number }[]>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    return row?.n ?? -1;
  } finally {
    await observer.$disconnect();
  }
}

describe("direct queries", () => {
  it("read the same rows as Prisma's raw path, Dates bound the same way, before Prisma ever connects", async () => {
    await using database = await createScratchDatabase();
    const db = createDbClient({ connectionString: database.url, maxConnections: 2 });
    try {
      const at = new Date("2026-11-30T10:11:12.345Z");
      const values = ["box", crypto.randomUUID(), 7, true, at, "2026-11-30T10:11:12.345"];
      const direct = await queryRows(db, ROW, values);
      const throughPrisma = await db.$queryRawUnsafe(
        ROW,
        ...values.map((v) => (v instanceof Date ? v.toISOString().slice(0, -1) : v)),
      );
      expect(direct).toEqual(throughPrisma);
      expect(direct).toEqual([
        {
          label: "box",
          id: values[1],
          n: 7,
          flag: true,
          doc: { n: 7, at: expect.stringMatching(/^2026-11-30T10:11:12\.345/) as unknown },
          same_instant: true,
        },
      ]);
      // Straight to pg, not through Prisma: a failure is Postgres's own error, with its SQLSTATE
      // (Prisma's raw path would wrap it as P2010).
      await expect(queryRows(db, "SELECT 1 / $1::int AS n", [0])).rejects.toMatchObject({
        code: "22012",
      });
    } finally {
      await db.$disconnect();
    }
  });

  it("inside an interactive transaction, runs in the transaction", async () => {
    await using database = await createScratchDatabase();
    const db = createDbClient({ connectionString: database.url, maxConnections: 2 });
    try {
      await db.$executeRawUnsafe("CREATE TABLE notes (body text)");
      const seen = await db
        .$transaction(async (tx) => {
          await tx.$executeRawUnsafe("INSERT INTO notes VALUES ('inside')");
          const rows = await queryRows<{ body: string }>(tx, "SELECT body FROM notes", []);
          throw Object.assign(new Error("roll back"), { rows });
        })
        .catch((error: unknown) => (error as { rows: unknown }).rows);
      expect(seen).toEqual([{ body: "inside" }]);
      expect(await queryRows(db, "SELECT body FROM notes", [])).toEqual([]);
    } finally {
      await db.$disconnect();
    }
  });

  it("disconnecting ends the pool even when only direct statements used it", async () => {
    await using database = await createScratchDatabase();
    const db = createDbClient({ connectionString: database.url, maxConnections: 2 });
    await queryRows(db, "SELECT 1 AS one", []);
    expect(await backends(database.url)).toBe(1);
    await db.$disconnect();
    expect(await backends(database.url)).toBe(0);
  });
});
