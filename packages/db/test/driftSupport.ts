import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createScratchDatabase } from "./scratchDatabase.ts";
import { applyMigrations } from "../src/migrate/runner.ts";
import { readAllowlistFile } from "../src/drift/allowlist.ts";
import type { DriftDifference } from "../src/drift/differences.ts";
import { checkSchemaDrift } from "../src/drift/index.ts";
import type { AllowlistEntry } from "../src/drift/shapes.ts";

// Shared by the drift tests: the repository's schema and allowlist, and a database migrated
// from the repository's migrations, then altered the way each test needs.

const schemaPath = fileURLToPath(new URL("../../../prisma/schema.prisma", import.meta.url));
const allowlistPath = fileURLToPath(new URL("../../../prisma/sql-only.json", import.meta.url));

export function repoSchemaText(): Promise<string> {
  return readFile(schemaPath, "utf8");
}

export function repoAllowlist(): Promise<AllowlistEntry[]> {
  return readAllowlistFile(allowlistPath);
}

export async function execute(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface DriftAfterOptions {
  /** SQL run after the repository's migrations. */
  readonly alter?: string;
  /** Defaults to prisma/schema.prisma. */
  readonly schemaText?: string;
  /** Defaults to prisma/sql-only.json. */
  readonly allowlist?: readonly AllowlistEntry[];
}

/** The drift of a freshly migrated database after `alter`, checked against the repo's files. */
export async function driftAfter(options: DriftAfterOptions): Promise<readonly DriftDifference[]> {
  await using db = await createScratchDatabase();
  await applyMigrations({ connectionString: db.url });
  if (options.alter !== undefined) await execute(db.url, options.alter);
  const report = await checkSchemaDrift({
    schemaText: options.schemaText ?? (await repoSchemaText()),
    connectionString: db.url,
    allowlist: options.allowlist ?? (await repoAllowlist()),
  });
  return report.differences;
}

/** `schemaText` with `search` replaced once; fails loudly if the schema no longer has it. */
export function editSchema(schemaText: string, search: string, replacement: string): string {
  if (!schemaText.includes(search))
    throw new Error(`schema.prisma no longer contains ${JSON.stringify(search)}`);
  return schemaText.replace(search, replacement);
}
