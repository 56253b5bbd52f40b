import { describe, expect, it } from "vitest";
import { driftAfter, editSchema, repoAllowlist, repoSchemaText } from "../../test/driftSupport.ts";

// Each test migrates a database from the repository's migrations, changes one thing, and
// expects exactly one difference naming the table and column it changed.

describe("schema drift: tables and columns", () => {
  it("reports a column type change", async () => {
    const differences = await driftAfter({
      alter: `ALTER TABLE users ALTER COLUMN name TYPE varchar(10)`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "typeMismatch",
        table: "users",
        column: "name",
        expected: "text",
        actual: "character varying(10)",
      }),
    ]);
  });

  it("reports a precision change inside the same base type", async () => {
    const differences = await driftAfter({
      alter: `ALTER TABLE api_tokens ALTER COLUMN created_at TYPE timestamptz(6)`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "typeMismatch",
        table: "api_tokens",
        column: "created_at",
        expected: "timestamp(3) with time zone",
        actual: "timestamp(6) with time zone",
      }),
    ]);
  });

  it("reports a required column that became nullable", async () => {
    const differences = await driftAfter({
      alter: `ALTER TABLE workspaces ALTER COLUMN name DROP NOT NULL`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "nullabilityMismatch",
        table: "workspaces",
        column: "name",
        expectedNullable: false,
      }),
    ]);
  });

  it("reports an optional column that became NOT NULL", async () => {
    const differences = await driftAfter({
      alter: `ALTER TABLE api_tokens ALTER COLUMN revoked_at SET NOT NULL`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "nullabilityMismatch",
        table: "api_tokens",
        column: "revoked_at",
        expectedNullable: true,
      }),
    ]);
  });

  it("reports a changed literal default", async () => {
    const differences = await driftAfter({
      alter: `ALTER TABLE sessions ALTER COLUMN active_epoch SET DEFAULT 1`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "defaultMismatch",
        table: "sessions",
        column: "active_epoch",
        expected: "0",
        actual: "1",
      }),
    ]);
    expect(differences[0]?.message).toBe(
      "column sessions.active_epoch: schema.prisma's default is 0, the database's is 1",
    );
  });

  it("reports a dropped now() default", async () => {
    const differences = await driftAfter({
      alter: `ALTER TABLE users ALTER COLUMN created_at DROP DEFAULT`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "defaultMismatch",
        table: "users",
        column: "created_at",
        expected: "now()",
        actual: null,
      }),
    ]);
  });

  it("reports a default changed in schema.prisma but not migrated", async () => {
    const schemaText = editSchema(
      await repoSchemaText(),
      `title           String   @default("")`,
      `title String @default("untitled")`,
    );

    const differences = await driftAfter({ schemaText });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "defaultMismatch",
        table: "sessions",
        column: "title",
        expected: '"untitled"',
        actual: "''::text",
      }),
    ]);
  });

  it("reports a dropped column as missing", async () => {
    const differences = await driftAfter({
      alter: `ALTER TABLE api_tokens DROP COLUMN last_used_at`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "missingColumn",
        table: "api_tokens",
        column: "last_used_at",
        expectedType: "timestamp(3) with time zone",
      }),
    ]);
  });

  it("reports an added column as extra", async () => {
    const differences = await driftAfter({ alter: `ALTER TABLE users ADD COLUMN nickname text` });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "extraColumn",
        table: "users",
        column: "nickname",
        actualType: "text",
      }),
    ]);
  });

  it("reports a model without a table as a missing table", async () => {
    const schemaText = `${await repoSchemaText()}\nmodel ExtraModel {\n  id Int @id\n\n  @@map("audit_trail_extra")\n}\n`;

    const differences = await driftAfter({ schemaText });

    expect(differences).toEqual([
      expect.objectContaining({ kind: "missingTable", table: "audit_trail_extra" }),
    ]);
  });

  it("reports an unlisted table once, not once per column or index", async () => {
    const differences = await driftAfter({
      alter: `CREATE TABLE side_notes (id int PRIMARY KEY, note text CHECK (note <> ''));
              CREATE INDEX side_notes_note_idx ON side_notes (note)`,
    });

    expect(differences).toEqual([
      expect.objectContaining({ kind: "extraTable", table: "side_notes" }),
    ]);
  });

  it("accepts a table listed in the allowlist, with what hangs off it", async () => {
    const differences = await driftAfter({
      alter: `CREATE TABLE side_notes (id int PRIMARY KEY, note text CHECK (note <> ''))`,
      allowlist: [
        ...(await repoAllowlist()),
        { kind: "table", name: "side_notes", reason: "written only by a trigger" },
      ],
    });

    expect(differences).toEqual([]);
  });
});
