import { fileURLToPath } from "node:url";
import { readActualSchema } from "./actualSchema.ts";
import { parseAllowlist } from "./allowlist.ts";
import { compareSchemas } from "./compare.ts";
import type { DriftReport } from "./differences.ts";
import { expectedSchema } from "./expectedSchema.ts";
import type { AllowlistEntry } from "./shapes.ts";

export interface CheckSchemaDriftOptions {
  /** The text of schema.prisma. */
  readonly schemaText: string;
  /** The database to check; only its `public` schema is read. */
  readonly connectionString: string;
  /** The SQL-only objects the database may have beyond the schema (prisma/sql-only.json). */
  readonly allowlist: readonly AllowlistEntry[];
}

/**
 * Compares the database with what schema.prisma describes. Every disagreement is reported,
 * including SQL-only objects missing from the allowlist and allowlist entries that no longer
 * match anything; an empty `differences` means no drift.
 *
 * Throws SchemaParseError for an invalid schema, UnsupportedSchemaError for schema features the
 * checker cannot map, and InvalidAllowlistError for a malformed allowlist.
 */
export async function checkSchemaDrift(options: CheckSchemaDriftOptions): Promise<DriftReport> {
  // Validated here as well as when read, so a hand-built allowlist also needs its reasons.
  const allowlist = parseAllowlist(options.allowlist);
  const expected = expectedSchema(options.schemaText);
  const actual = await readActualSchema(options.connectionString);
  return { differences: compareSchemas({ expected, actual, allowlist }) };
}

/** One line per difference, for test failures and CLI output. */
export function formatDriftReport(report: DriftReport): string {
  if (report.differences.length === 0) return "no schema drift";
  return report.differences.map((d) => `- [${d.kind}] ${d.message}`).join("\n");
}

/** The repository's schema.prisma. */
export const defaultSchemaPath = fileURLToPath(
  new URL("../../../../prisma/schema.prisma", import.meta.url),
);

/** The repository's SQL-only allowlist. */
export const defaultAllowlistPath = fileURLToPath(
  new URL("../../../../prisma/sql-only.json", import.meta.url),
);

export { InvalidAllowlistError, parseAllowlist, readAllowlistFile } from "./allowlist.ts";
export { SchemaParseError } from "./expectedSchema.ts";
export { UnsupportedSchemaError } from "./postgresTypes.ts";
export type {
  DifferenceData,
  DriftDifference,
  DriftDifferenceKind,
  DriftReport,
} from "./differences.ts";
export type { AllowlistEntry, SqlObject, SqlObjectKind } from "./shapes.ts";
