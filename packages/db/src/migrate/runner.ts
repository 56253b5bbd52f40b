import { randomUUID } from "node:crypto";
import pg from "pg";
import {
  MigrationChecksumMismatchError,
  MigrationFailedError,
  MigrationUnfinishedError,
} from "./errors.ts";
import { readMigrationFiles, type MigrationFile } from "./migrationFiles.ts";

/**
 * The advisory lock key Prisma's own `migrate deploy` takes, so our runner and Prisma's
 * exclude each other as well as other instances of ours.
 */
const MIGRATION_LOCK_KEY = 72707369;

/** Prisma's own bookkeeping table, kept as Prisma writes it. */
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum"            VARCHAR(64) NOT NULL,
  "finished_at"         TIMESTAMPTZ,
  "migration_name"      VARCHAR(255) NOT NULL,
  "logs"                TEXT,
  "rolled_back_at"      TIMESTAMPTZ,
  "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export type MigrationEvent =
  | { readonly kind: "locked" }
  | { readonly kind: "applying"; readonly migration: string }
  | { readonly kind: "applied"; readonly migration: string; readonly ms: number };

export interface ApplyMigrationsOptions {
  readonly connectionString: string;
  /** Defaults to the repository's `prisma/migrations`. */
  readonly migrationsDir?: string;
  readonly onEvent?: (event: MigrationEvent) => void;
}

export interface ApplyMigrationsResult {
  readonly applied: readonly string[];
  readonly alreadyApplied: readonly string[];
  /** Recorded in the database but missing from the folder (e.g. an older checkout). */
  readonly unknown: readonly string[];
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/**
 * Applies every pending migration, each in its own transaction.
 *
 * One dedicated connection holds a session advisory lock for the whole run; the applied set
 * is read only after the lock is taken, so concurrent runners apply each migration once.
 */
export async function applyMigrations(
  options: ApplyMigrationsOptions,
): Promise<ApplyMigrationsResult> {
  const files = await readMigrationFiles(options.migrationsDir);
  const client = new pg.Client({ connectionString: options.connectionString });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    options.onEvent?.({ kind: "locked" });
    await client.query(CREATE_MIGRATIONS_TABLE);
    const applied = await readApplied(client);
    const plan = planMigrations(files, applied);
    for (const file of plan.pending) {
      options.onEvent?.({ kind: "applying", migration: file.name });
      const started = performance.now();
      await applyOne(client, file);
      options.onEvent?.({ kind: "applied", migration: file.name, ms: performance.now() - started });
    }
    return {
      applied: plan.pending.map((file) => file.name),
      alreadyApplied: plan.alreadyApplied,
      unknown: plan.unknown,
    };
  } finally {
    // Unlock explicitly: on the embedded database every connection shares one session, so
    // closing ours would not release the lock. On Postgres, ending the session would.
    await client
      .query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY])
      .catch(() => undefined);
    await client.end();
  }
}

async function readApplied(client: pg.Client): Promise<Map<string, AppliedRow>> {
  const { rows } = await client.query<AppliedRow>(
    `SELECT migration_name, checksum, finished_at, rolled_back_at
       FROM "_prisma_migrations" ORDER BY started_at`,
  );
  const applied = new Map<string, AppliedRow>();
  for (const row of rows) {
    if (row.rolled_back_at !== null) continue;
    if (row.finished_at === null) throw new MigrationUnfinishedError(row.migration_name);
    applied.set(row.migration_name, row);
  }
  return applied;
}

function planMigrations(files: readonly MigrationFile[], applied: Map<string, AppliedRow>) {
  const pending: MigrationFile[] = [];
  const alreadyApplied: string[] = [];
  for (const file of files) {
    const row = applied.get(file.name);
    if (row === undefined) {
      pending.push(file);
      continue;
    }
    if (row.checksum !== file.checksum) {
      throw new MigrationChecksumMismatchError({
        migration: file.name,
        path: file.path,
        appliedChecksum: row.checksum,
        fileChecksum: file.checksum,
      });
    }
    alreadyApplied.push(file.name);
  }
  const known = new Set(files.map((file) => file.name));
  const unknown = [...applied.keys()].filter((name) => !known.has(name));
  return { pending, alreadyApplied, unknown };
}

async function applyOne(client: pg.Client, file: MigrationFile): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query(file.sql);
    await client.query(
      `INSERT INTO "_prisma_migrations"
         (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), clock_timestamp(), 1)`,
      [randomUUID(), file.checksum, file.name],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw new MigrationFailedError(file.name, file.path, error);
  }
}
