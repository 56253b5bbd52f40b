import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createScratchDatabase } from "../../test/scratchDatabase.ts";
import { MigrationChecksumMismatchError, MigrationFailedError } from "./errors.ts";
import { applyMigrations } from "./runner.ts";

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A migrations folder in Prisma's layout, made of the given `name → sql` pairs. */
async function migrationsFolder(migrations: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "berth-migrations-"));
  folders.push(dir);
  for (const [name, sql] of Object.entries(migrations)) {
    await mkdir(join(dir, name));
    await writeFile(join(dir, name, "migration.sql"), sql);
  }
  return dir;
}

async function query<TRow extends pg.QueryResultRow>(url: string, sql: string): Promise<TRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<TRow>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Everything a migration could change, as one comparable value. */
async function catalogSnapshot(url: string): Promise<unknown> {
  return query(
    url,
    `SELECT 'rel' AS k, c.relname AS name, c.relkind::text AS detail FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'
     UNION ALL
     SELECT 'col', a.attrelid::regclass::text || '.' || a.attname, format_type(a.atttypid, a.atttypmod)
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped
     UNION ALL
     SELECT 'con', conname, pg_get_constraintdef(oid) FROM pg_constraint
      WHERE connamespace = 'public'::regnamespace
     UNION ALL
     SELECT 'fn', proname, pg_get_function_identity_arguments(oid) FROM pg_proc
      WHERE pronamespace = 'public'::regnamespace
     UNION ALL
     SELECT 'mig', migration_name, checksum FROM "_prisma_migrations"
     ORDER BY 1, 2, 3`,
  );
}

describe("applyMigrations", () => {
  it("applies each migration once when four runners race on separate connections", async () => {
    await using db = await createScratchDatabase();
    const dir = await migrationsFolder({
      "001_table": `CREATE TABLE marks (id serial PRIMARY KEY, note text NOT NULL);`,
      // The side effect: applied twice, this would leave two rows.
      "002_seed": `INSERT INTO marks (note) VALUES ('seeded');`,
      "003_index": `CREATE INDEX marks_note_idx ON marks (note);`,
    });

    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        applyMigrations({ connectionString: db.url, migrationsDir: dir }),
      ),
    );

    const appliedAcrossRunners = results.flatMap((result) => result.applied).sort();
    expect(appliedAcrossRunners).toEqual(["001_table", "002_seed", "003_index"]);
    expect(await query(db.url, "SELECT note FROM marks")).toEqual([{ note: "seeded" }]);
    const recorded = await query<{ migration_name: string }>(
      db.url,
      `SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(recorded.map((row) => row.migration_name)).toEqual([
      "001_table",
      "002_seed",
      "003_index",
    ]);
  });

  it("leaves the catalog exactly as it was when a migration fails", async () => {
    await using db = await createScratchDatabase();
    const good = { "001_table": `CREATE TABLE marks (id serial PRIMARY KEY);` };
    await applyMigrations({
      connectionString: db.url,
      migrationsDir: await migrationsFolder(good),
    });
    const before = await catalogSnapshot(db.url);

    const dir = await migrationsFolder({
      ...good,
      "002_half": `CREATE TABLE half (id int);
                   CREATE FUNCTION half_fn() RETURNS int LANGUAGE sql AS 'SELECT 1';
                   ALTER TABLE marks ADD COLUMN extra text;
                   SELECT * FROM no_such_table;`,
    });
    const failure = applyMigrations({ connectionString: db.url, migrationsDir: dir });

    await expect(failure).rejects.toBeInstanceOf(MigrationFailedError);
    await expect(failure).rejects.toThrow(/002_half.*no_such_table/s);
    expect(await catalogSnapshot(db.url)).toEqual(before);
  });

  it("refuses an applied migration whose file was edited, naming the file", async () => {
    await using db = await createScratchDatabase();
    const dir = await migrationsFolder({ "001_table": `CREATE TABLE marks (id int);` });
    await applyMigrations({ connectionString: db.url, migrationsDir: dir });
    await writeFile(join(dir, "001_table", "migration.sql"), `CREATE TABLE marks (id bigint);`);

    const refusal = applyMigrations({ connectionString: db.url, migrationsDir: dir });

    await expect(refusal).rejects.toBeInstanceOf(MigrationChecksumMismatchError);
    await expect(refusal).rejects.toThrow(join(dir, "001_table", "migration.sql"));
  });

  it("applies only what is new on a second run", async () => {
    await using db = await createScratchDatabase();
    const first = { "001_table": `CREATE TABLE marks (id int);` };
    await applyMigrations({
      connectionString: db.url,
      migrationsDir: await migrationsFolder(first),
    });

    const second = await applyMigrations({
      connectionString: db.url,
      migrationsDir: await migrationsFolder({
        ...first,
        "002_more": `ALTER TABLE marks ADD note text;`,
      }),
    });

    expect(second).toEqual({ applied: ["002_more"], alreadyApplied: ["001_table"], unknown: [] });
  });

  it("applies the repository's own migrations to an empty database", async () => {
    await using db = await createScratchDatabase();
    const result = await applyMigrations({ connectionString: db.url });
    expect(result.applied.length).toBeGreaterThan(0);
    const tables = await query<{ table_name: string }>(
      db.url,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
    );
    expect(tables.map((row) => row.table_name)).toContain("sessions");
  });
});
