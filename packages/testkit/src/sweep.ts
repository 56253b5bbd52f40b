import { quoteIdent, withAdminClient } from "./admin.ts";
import { creatorPid, TEMPLATE_PREFIX, TEST_DATABASE_PREFIX } from "./names.ts";

export interface SweepOptions {
  readonly adminUrl: string;
  /** The template in use now; other templates are stale and dropped. */
  readonly keepTemplate?: string;
}

/**
 * Drops test databases left by runs that died (their creator pid is gone) and stale templates.
 * A database still in use is skipped rather than forced: it belongs to a run that is alive.
 */
export async function sweepLeftoverDatabases(options: SweepOptions): Promise<string[]> {
  return withAdminClient(options.adminUrl, async (admin) => {
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname LIKE $2`,
      [`${TEST_DATABASE_PREFIX}%`, `${TEMPLATE_PREFIX}%`],
    );
    const dropped: string[] = [];
    for (const { datname } of rows) {
      if (!isLeftover(datname, options.keepTemplate)) continue;
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(datname)}`);
        dropped.push(datname);
      } catch {
        // In use by a live session (55006): not a leftover after all.
      }
    }
    return dropped;
  });
}

function isLeftover(name: string, keepTemplate: string | undefined): boolean {
  if (name.startsWith(TEMPLATE_PREFIX)) return name !== keepTemplate;
  const pid = creatorPid(name);
  return pid === undefined || !isAlive(pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
