import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readTestAdminUrl } from "@berth/db";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { quoteIdent, withAdminClient } from "../src/admin.ts";
import {
  createTestDatabase,
  ensureTemplate,
  sweepLeftoverDatabases,
  useTestDatabase,
} from "../src/index.ts";
import { testDatabaseName } from "../src/names.ts";

const adminUrl = readTestAdminUrl();

async function databaseExists(name: string): Promise<boolean> {
  return withAdminClient(adminUrl, async (admin) => {
    const { rowCount } = await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name]);
    return rowCount === 1;
  });
}

async function tablesOf(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
    );
    return rows.map((row) => row.table_name);
  } finally {
    await client.end();
  }
}

describe("useTestDatabase", () => {
  const database = useTestDatabase();

  it("gives the file a migrated database that Prisma can write to", async () => {
    const workspace = await database.current.prisma.workspace.create({
      data: { slug: "acme", name: "Acme" },
    });
    expect(workspace.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await tablesOf(database.current.url)).toEqual(
      expect.arrayContaining(["_prisma_migrations", "workspaces", "sessions"]),
    );
  });
});

describe("createTestDatabase", () => {
  it("builds a new template when the migrations change, never reusing a stale one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "berth-testkit-"));
    const writeMigration = async (name: string, sql: string) => {
      await mkdir(join(dir, name), { recursive: true });
      await writeFile(join(dir, name, "migration.sql"), sql);
    };
    try {
      await writeMigration("001_a", "CREATE TABLE first_table (id int);");
      await using first = await createTestDatabase({ migrationsDir: dir });
      await writeMigration("001_a", "CREATE TABLE renamed_table (id int);");
      await using second = await createTestDatabase({ migrationsDir: dir });

      expect(await tablesOf(first.url)).toContain("first_table");
      expect(await tablesOf(second.url)).toContain("renamed_table");
      expect(await tablesOf(second.url)).not.toContain("first_table");
    } finally {
      await rm(dir, { recursive: true, force: true });
      // The two templates this test built are stale for every other run.
      await sweepLeftoverDatabases({ adminUrl, keepTemplate: await currentTemplate() });
    }
  });

  it("drops the database on dispose", async () => {
    const database = await createTestDatabase();
    await database.prisma.user.create({ data: { email: "a@example.com", name: "A" } });
    await database[Symbol.asyncDispose]();
    expect(await databaseExists(database.name)).toBe(false);
  });
});

describe("sweepLeftoverDatabases", () => {
  it("drops databases of runs that died and keeps those of live runs", async () => {
    const deadPid = spawnSync(process.execPath, ["-e", ""]).pid;
    const dead = testDatabaseName(deadPid, "leftover");
    const live = testDatabaseName(process.pid, "inuse");
    await withAdminClient(adminUrl, async (admin) => {
      await admin.query(`CREATE DATABASE ${quoteIdent(dead)}`);
      await admin.query(`CREATE DATABASE ${quoteIdent(live)}`);
    });
    try {
      const dropped = await sweepLeftoverDatabases({
        adminUrl,
        keepTemplate: await currentTemplate(),
      });
      expect(dropped).toContain(dead);
      expect(await databaseExists(dead)).toBe(false);
      expect(await databaseExists(live)).toBe(true);
    } finally {
      await withAdminClient(adminUrl, (admin) =>
        admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(live)}`),
      );
    }
  });
});

describe("a failing test file", () => {
  it("still drops its database", async () => {
    const fixtures = join(import.meta.dirname, "fixtures");
    const child = spawn(
      process.execPath,
      [vitestBin(), "run", "--config", join(fixtures, "vitest.config.ts")],
      {
        cwd: fixtures,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));

    const name = /BERTH_FIXTURE_DATABASE=(\S+)/.exec(output)?.[1];
    expect(code, output).not.toBe(0);
    expect(name, output).toMatch(/^berth_test_/);
    expect(await databaseExists(name ?? "")).toBe(false);
  });
});

function vitestBin(): string {
  return join(import.meta.dirname, "..", "node_modules", "vitest", "vitest.mjs");
}

function currentTemplate(): Promise<string> {
  return ensureTemplate({ adminUrl });
}
