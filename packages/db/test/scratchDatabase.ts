import { randomBytes } from "node:crypto";
import pg from "pg";
import { readTestAdminUrl } from "../src/env.ts";
import { withDatabase } from "../src/url.ts";

/**
 * An empty database for one test, dropped on dispose. The db package cannot use
 * @berth/testkit (testkit depends on db), so it creates its databases with `pg` directly.
 * Names carry the creating pid so testkit's sweep can drop leftovers of dead runs.
 */
export interface ScratchDatabase extends AsyncDisposable {
  readonly name: string;
  readonly url: string;
}

export async function createScratchDatabase(): Promise<ScratchDatabase> {
  const adminUrl = readTestAdminUrl();
  const name = `berth_test_${process.pid}_${randomBytes(6).toString("hex")}`;
  await adminQuery(adminUrl, `CREATE DATABASE "${name}"`);
  return {
    name,
    url: withDatabase(adminUrl, name),
    [Symbol.asyncDispose]: () =>
      adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
