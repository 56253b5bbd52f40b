import { describe, expect, it } from "vitest";
import { createScratchDatabase } from "../../test/scratchDatabase.ts";
import { applyMigrations } from "../migrate/runner.ts";
import { driftAfter, repoAllowlist, repoSchemaText } from "../../test/driftSupport.ts";
import { checkSchemaDrift, formatDriftReport, SchemaParseError } from "./index.ts";

describe("schema drift: prisma/schema.prisma against prisma/migrations", () => {
  // THE drift test: whenever a migration and schema.prisma disagree, this fails and lists how.
  it("finds no difference between the migrated database and schema.prisma + sql-only.json", async () => {
    await using db = await createScratchDatabase();
    await applyMigrations({ connectionString: db.url });

    const report = await checkSchemaDrift({
      schemaText: await repoSchemaText(),
      connectionString: db.url,
      allowlist: await repoAllowlist(),
    });

    expect(formatDriftReport(report)).toBe("no schema drift");
    expect(report.differences).toEqual([]);
  });

  it("needs every sql-only.json entry: without them, exactly those objects are unlisted", async () => {
    const allowlist = await repoAllowlist();

    const differences = await driftAfter({ allowlist: [] });

    expect(differences.map((d) => d.kind)).toEqual(allowlist.map(() => "unlistedSqlObject"));
    const key = (object: { kind: string; name: string } | undefined) =>
      `${String(object?.kind)}:${String(object?.name)}`;
    const unlisted = differences.map((d) =>
      d.kind === "unlistedSqlObject" ? d.object : undefined,
    );
    expect(unlisted.map(key).sort()).toEqual(allowlist.map(key).sort());
  });

  it("rejects an allowlist entry without a reason", async () => {
    const allowlist = (await repoAllowlist()).map((entry) => ({ ...entry, reason: "  " }));

    await expect(driftAfter({ allowlist })).rejects.toThrow(/\[0\.reason\] needs a reason/);
  });

  it("rejects a table-scoped allowlist entry that does not name its table", async () => {
    const allowlist = [{ kind: "check" as const, name: "memberships_role_check", reason: "roles" }];

    await expect(driftAfter({ allowlist })).rejects.toThrow(/a check entry must name its table/);
  });

  it("reports an invalid schema.prisma with Prisma's message", async () => {
    const schemaText = `${await repoSchemaText()}\nmodel Broken {\n  id Nope @id\n}\n`;

    const failure = driftAfter({ schemaText });

    await expect(failure).rejects.toBeInstanceOf(SchemaParseError);
    await expect(failure).rejects.toThrow(/^error: Type "Nope" is neither a built-in type/);
  });
});
