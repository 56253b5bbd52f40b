import { describe, expect, it } from "vitest";
import { driftAfter } from "../../test/driftSupport.ts";

// Keys and indexes are compared by table and ordered column list, never by name.

describe("schema drift: keys, indexes and foreign keys", () => {
  it("reports a dropped @unique index", async () => {
    const differences = await driftAfter({ alter: `DROP INDEX users_email_key` });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "missingUnique",
        table: "users",
        columns: ["email"],
        method: "btree",
      }),
    ]);
  });

  it("reports a dropped @@unique index", async () => {
    const differences = await driftAfter({
      alter: `DROP INDEX memberships_workspace_id_user_id_key`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "missingUnique",
        table: "memberships",
        columns: ["workspace_id", "user_id"],
      }),
    ]);
  });

  it("reports an extra unique index, and ignores a renamed one", async () => {
    const differences = await driftAfter({
      alter: `CREATE UNIQUE INDEX sessions_title_key ON sessions (title);
              ALTER INDEX users_email_key RENAME TO users_email_unique`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "extraUnique",
        table: "sessions",
        name: "sessions_title_key",
        columns: ["title"],
      }),
    ]);
  });

  it("reports a dropped @@index", async () => {
    const differences = await driftAfter({ alter: `DROP INDEX memberships_user_id_idx` });

    expect(differences).toEqual([
      expect.objectContaining({ kind: "missingIndex", table: "memberships", columns: ["user_id"] }),
    ]);
  });

  it("reports an extra index", async () => {
    const differences = await driftAfter({
      alter: `CREATE INDEX sessions_title_idx ON sessions (title)`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "extraIndex",
        table: "sessions",
        name: "sessions_title_idx",
        columns: ["title"],
      }),
    ]);
  });

  it("reports an index whose columns are in another order as missing plus extra", async () => {
    const differences = await driftAfter({
      alter: `DROP INDEX sessions_workspace_id_sandbox_group_id_idx;
              CREATE INDEX sessions_reordered_idx ON sessions (sandbox_group_id, workspace_id)`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "missingIndex",
        table: "sessions",
        columns: ["workspace_id", "sandbox_group_id"],
      }),
      expect.objectContaining({
        kind: "extraIndex",
        table: "sessions",
        name: "sessions_reordered_idx",
        columns: ["sandbox_group_id", "workspace_id"],
      }),
    ]);
  });

  it("reports an index that became unique as missing plus extra", async () => {
    const differences = await driftAfter({
      alter: `DROP INDEX api_tokens_user_id_idx; CREATE UNIQUE INDEX api_tokens_user_id_idx ON api_tokens (user_id)`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "extraUnique",
        table: "api_tokens",
        name: "api_tokens_user_id_idx",
      }),
      expect.objectContaining({ kind: "missingIndex", table: "api_tokens", columns: ["user_id"] }),
    ]);
  });

  it("reports a dropped primary key", async () => {
    const differences = await driftAfter({
      alter: `ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_pkey`,
    });

    expect(differences).toEqual([
      expect.objectContaining({ kind: "missingPrimaryKey", table: "api_tokens", columns: ["id"] }),
    ]);
  });

  it("reports a dropped foreign key", async () => {
    const differences = await driftAfter({
      alter: `ALTER TABLE sessions DROP CONSTRAINT sessions_workspace_id_fkey`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "missingForeignKey",
        table: "sessions",
        columns: ["workspace_id"],
        referencedTable: "workspaces",
        referencedColumns: ["id"],
        onDelete: "Cascade",
      }),
    ]);
  });

  it("reports a foreign key whose ON DELETE changed as missing plus extra", async () => {
    const differences = await driftAfter({
      alter: `ALTER TABLE memberships DROP CONSTRAINT memberships_user_id_fkey;
              ALTER TABLE memberships ADD CONSTRAINT memberships_user_id_fkey FOREIGN KEY (user_id)
                REFERENCES users (id) ON DELETE RESTRICT ON UPDATE CASCADE`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "missingForeignKey",
        table: "memberships",
        columns: ["user_id"],
        onDelete: "Cascade",
      }),
      expect.objectContaining({
        kind: "extraForeignKey",
        table: "memberships",
        name: "memberships_user_id_fkey",
        onDelete: "Restrict",
      }),
    ]);
  });
});
