import { describe, expect, it } from "vitest";
import { driftAfter, repoAllowlist } from "../../test/driftSupport.ts";

// What schema.prisma cannot express must be in prisma/sql-only.json, and every entry there
// must still exist: both directions fail the check.

const touchFunction = `
CREATE FUNCTION touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.updated_at := CURRENT_TIMESTAMP; RETURN NEW; END $$`;

describe("schema drift: SQL-only objects and the allowlist", () => {
  it("reports an unlisted CHECK constraint", async () => {
    const differences = await driftAfter({
      alter: `ALTER TABLE sessions ADD CONSTRAINT sessions_active_epoch_check CHECK (active_epoch >= 0)`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "unlistedSqlObject",
        object: { kind: "check", name: "sessions_active_epoch_check", table: "sessions" },
      }),
    ]);
  });

  it("reports an unlisted function", async () => {
    const differences = await driftAfter({ alter: touchFunction });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "unlistedSqlObject",
        object: { kind: "function", name: "touch_updated_at" },
      }),
    ]);
  });

  it("reports an unlisted trigger and its function, and accepts them once listed", async () => {
    const alter = `${touchFunction};
      CREATE TRIGGER users_touch BEFORE UPDATE ON users FOR EACH ROW EXECUTE FUNCTION touch_updated_at()`;

    const unlisted = await driftAfter({ alter });
    const listed = await driftAfter({
      alter,
      allowlist: [
        ...(await repoAllowlist()),
        {
          kind: "function",
          name: "touch_updated_at",
          reason: "sets updated_at on raw SQL updates",
        },
        { kind: "trigger", name: "users_touch", table: "users", reason: "runs touch_updated_at" },
      ],
    });

    expect(unlisted).toEqual([
      expect.objectContaining({
        kind: "unlistedSqlObject",
        object: { kind: "trigger", name: "users_touch", table: "users" },
      }),
      expect.objectContaining({
        kind: "unlistedSqlObject",
        object: { kind: "function", name: "touch_updated_at" },
      }),
    ]);
    expect(listed).toEqual([]);
  });

  it("reports a partial index as a SQL-only index, not as an extra @@index", async () => {
    const differences = await driftAfter({
      alter: `CREATE INDEX api_tokens_live_idx ON api_tokens (workspace_id) WHERE revoked_at IS NULL`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "unlistedSqlObject",
        object: { kind: "index", name: "api_tokens_live_idx", table: "api_tokens" },
      }),
    ]);
  });

  it("reports an unlisted view", async () => {
    const differences = await driftAfter({
      alter: `CREATE VIEW live_tokens AS SELECT * FROM api_tokens`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "unlistedSqlObject",
        object: { kind: "view", name: "live_tokens" },
      }),
    ]);
  });

  it("ignores objects an extension owns", async () => {
    const differences = await driftAfter({ alter: `CREATE EXTENSION IF NOT EXISTS pg_trgm` });

    expect(differences).toEqual([]);
  });

  it("reports an allowlisted CHECK that a migration dropped as stale", async () => {
    const differences = await driftAfter({
      alter: `ALTER TABLE memberships DROP CONSTRAINT memberships_role_check`,
    });

    // toMatchObject compares arrays element by element and length exactly, objects partially.
    expect(differences).toMatchObject([
      {
        kind: "staleAllowlistEntry",
        entry: { kind: "check", name: "memberships_role_check", table: "memberships" },
      },
    ]);
  });

  it("reports an allowlist entry for an object that never existed as stale", async () => {
    const differences = await driftAfter({
      allowlist: [
        ...(await repoAllowlist()),
        {
          kind: "check",
          name: "sessions_title_check",
          table: "sessions",
          reason: "titles are short",
        },
      ],
    });

    expect(differences).toMatchObject([
      {
        kind: "staleAllowlistEntry",
        entry: { kind: "check", name: "sessions_title_check", table: "sessions" },
      },
    ]);
  });
});
