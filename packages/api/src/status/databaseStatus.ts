import { redactDatabaseUrl, type DbClient } from "@berth/db";

export type DatabaseEngine = "PGlite" | "PostgreSQL";

export interface DatabaseStatus {
  readonly database: {
    readonly engine: DatabaseEngine;
    /** `SELECT version()`, as the server reports itself. */
    readonly version: string;
    /** The URL with its password replaced. */
    readonly url: string;
  };
  readonly latestMigration: { readonly name: string; readonly appliedAt: Date } | null;
}

/** Reads what the server says about itself; PGlite names itself in `version()`. */
export async function readDatabaseStatus(options: {
  db: DbClient;
  databaseUrl: string;
}): Promise<DatabaseStatus> {
  const [versionRows, migrationRows] = await Promise.all([
    options.db.$queryRaw<{ version: string }[]>`SELECT version() AS version`,
    options.db.$queryRaw<{ name: string; applied_at: Date }[]>`
      SELECT migration_name AS name, finished_at AS applied_at FROM "_prisma_migrations"
       WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL
       ORDER BY migration_name DESC LIMIT 1`,
  ]);
  const version = versionRows[0]?.version ?? "unknown";
  const latest = migrationRows[0];
  return {
    database: {
      engine: /pglite/i.test(version) ? "PGlite" : "PostgreSQL",
      version,
      url: redactDatabaseUrl(options.databaseUrl),
    },
    latestMigration:
      latest === undefined ? null : { name: latest.name, appliedAt: latest.applied_at },
  };
}
