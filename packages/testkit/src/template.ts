import { withDatabase } from "@berth/db";
import type pg from "pg";
import { applyMigrations, migrationsFingerprint, readMigrationFiles } from "@berth/db/migrate";
import { quoteIdent, withAdminClient } from "./admin.ts";
import { templateName } from "./names.ts";

/** Serialises template builds across every test process on the server. */
const TEMPLATE_LOCK_KEY = 0x62657274; // "bert"
/** Marks a template whose migrations all applied; a template without it is a crashed build. */
const READY_COMMENT = "berth:template-ready";

export interface TemplateOptions {
  readonly adminUrl: string;
  readonly migrationsDir?: string;
}

/**
 * Returns the name of a database holding every migration, building it once per migrations
 * fingerprint: a template from other migrations is never reused because its name differs.
 */
export async function ensureTemplate(options: TemplateOptions): Promise<string> {
  const files = await readMigrationFiles(options.migrationsDir);
  const name = templateName(migrationsFingerprint(files));
  return withAdminClient(options.adminUrl, async (admin) => {
    if (await isReady(admin, name)) return name;
    await admin.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK_KEY]);
    try {
      // Re-check under the lock: another process may have built it while we waited.
      if (await isReady(admin, name)) return name;
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
      await applyMigrations({
        connectionString: withDatabase(options.adminUrl, name),
        ...(options.migrationsDir === undefined ? {} : { migrationsDir: options.migrationsDir }),
      });
      await admin.query(`COMMENT ON DATABASE ${quoteIdent(name)} IS '${READY_COMMENT}'`);
      return name;
    } finally {
      await admin.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK_KEY]);
    }
  });
}

async function isReady(admin: pg.Client, name: string): Promise<boolean> {
  const { rows } = await admin.query<{ comment: string | null }>(
    `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`,
    [name],
  );
  return rows[0]?.comment === READY_COMMENT;
}
