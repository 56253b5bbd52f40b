import { readMigrationFiles } from "@berth/db/migrate";
import { useTestDatabase } from "@berth/testkit";
import { describe, expect, it } from "vitest";
import { callerAs, createTestApi } from "./support/testApi.ts";

const database = useTestDatabase();

describe("status.get", () => {
  it("reports the build, the real database with its password redacted, and the latest migration", async () => {
    const url = new URL(database.current.url);
    url.password = "s3cret-pass";
    const api = createTestApi(url.toString(), {
      env: { BERTH_VERSION: "1.2.3", BERTH_GIT_REVISION: "abc1234" },
    });
    try {
      const caller = await callerAs(api, "anonymous");
      const status = await caller.status.get();

      const migrations = await readMigrationFiles();
      expect(status).toMatchObject({
        version: "1.2.3",
        gitRevision: "abc1234",
        database: { engine: "PostgreSQL" },
        latestMigration: { name: migrations.at(-1)?.name },
      });
      expect(status.database.version).toMatch(/^PostgreSQL \d+/);
      expect(status.database.url).not.toContain("s3cret-pass");
      expect(status.database.url).toContain(database.current.name);
      expect(status.latestMigration?.appliedAt).toBeInstanceOf(Date);
    } finally {
      await api.close();
    }
  });
});
