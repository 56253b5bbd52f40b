import type pg from "pg";
import { describe, expect, it } from "vitest";
import { createScratchDatabase } from "../test/scratchDatabase.ts";
import { createDbClient } from "./client.ts";
import { preparedOnce, preparedStatements } from "./preparedStatements.ts";

const marked = preparedOnce("SELECT $1::int + 1 AS next");

/** A connection that answers only `version()`: enough to tell the namer what server it is. */
function serverSaying(version: string): pg.ClientBase {
  return { query: () => Promise.resolve({ rows: [{ version }] }) } as unknown as pg.ClientBase;
}

describe("prepared statements", () => {
  it("prepares a marked statement once per connection on Postgres, and nothing else", async () => {
    await using database = await createScratchDatabase();
    const db = createDbClient({ connectionString: database.url, maxConnections: 1 });
    try {
      for (const value of [1, 2, 3]) {
        expect(await db.$queryRawUnsafe(marked, value)).toEqual([{ next: value + 1 }]);
      }
      await db.$queryRawUnsafe("SELECT $1::int AS unmarked", 1);
      // One connection, so this runs in the session that prepared the statements.
      const prepared = await db.$queryRawUnsafe<{ statement: string }[]>(
        "SELECT statement FROM pg_prepared_statements",
      );
      expect(prepared).toEqual([{ statement: marked }]);
    } finally {
      await db.$disconnect();
    }
  });

  it("names nothing on a server whose connections share one session (PGlite)", async () => {
    const pglite = preparedStatements();
    await pglite.onConnect(
      serverSaying("PostgreSQL 18.6 (PGlite 0.5.14) on wasm32-unknown-emscripten, 32-bit"),
    );
    expect(pglite.statementNameGenerator({ sql: marked })).toBe("");

    const postgres = preparedStatements();
    expect(postgres.statementNameGenerator({ sql: marked })).toBe("");
    await postgres.onConnect(serverSaying("PostgreSQL 15.20 (Debian 15.20-0+deb12u1), 64-bit"));
    expect(postgres.statementNameGenerator({ sql: marked })).toMatch(/^berth_[0-9a-f]{24}$/);
    expect(postgres.statementNameGenerator({ sql: "SELECT 1" })).toBe("");
  });
});
