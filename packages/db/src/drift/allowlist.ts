import { readFile } from "node:fs/promises";
import { z } from "zod";
import { sqlObjectKinds, tableScopedKinds, type AllowlistEntry, type SqlObject } from "./shapes.ts";

// prisma/sql-only.json: the database objects the Prisma schema cannot express, each with the
// reason it exists. Objects attached to a listed table or view (its indexes, checks, triggers)
// are covered by that entry.

const entrySchema = z
  .strictObject({
    kind: z.enum(sqlObjectKinds),
    name: z.string().min(1),
    table: z.string().min(1).optional(),
    reason: z
      .string()
      .trim()
      .min(1, "needs a reason: why the object exists and why schema.prisma cannot express it"),
  })
  .superRefine((entry, ctx) => {
    const scoped = tableScopedKinds.has(entry.kind);
    if (scoped && entry.table === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["table"],
        message: `a ${entry.kind} entry must name its table`,
      });
    }
    if (!scoped && entry.table !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["table"],
        message: `a ${entry.kind} entry does not belong to a table`,
      });
    }
  });

const allowlistSchema = z.array(entrySchema).superRefine((entries, ctx) => {
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    const key = objectKey(entry);
    if (seen.has(key)) ctx.addIssue({ code: "custom", path: [index], message: "listed twice" });
    seen.add(key);
  });
});

/** The allowlist is malformed: not an array of entries, an entry without reason, a duplicate… */
export class InvalidAllowlistError extends Error {
  override readonly name = "InvalidAllowlistError";
}

/** Validates allowlist entries (e.g. the parsed sql-only.json); throws naming every problem. */
export function parseAllowlist(value: unknown): AllowlistEntry[] {
  const parsed = allowlistSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `  [${issue.path.join(".")}] ${issue.message}`,
  );
  throw new InvalidAllowlistError(`Invalid SQL-only allowlist:\n${problems.join("\n")}`);
}

/** Reads and validates an allowlist file such as prisma/sql-only.json. */
export async function readAllowlistFile(path: string): Promise<AllowlistEntry[]> {
  const text = await readFile(path, "utf8");
  try {
    return parseAllowlist(JSON.parse(text));
  } catch (error) {
    if (error instanceof SyntaxError) throw new InvalidAllowlistError(`${path}: ${error.message}`);
    throw error;
  }
}

export interface AllowlistMatch {
  /** Objects in the database that no entry lists. */
  readonly unlisted: readonly SqlObject[];
  /** Entries that list nothing in the database. */
  readonly stale: readonly AllowlistEntry[];
}

/** Pairs SQL-only objects with allowlist entries by kind, table and name. */
export function matchAllowlist(
  objects: readonly SqlObject[],
  allowlist: readonly AllowlistEntry[],
): AllowlistMatch {
  const present = new Set(objects.map(objectKey));
  const listed = new Set(allowlist.map(objectKey));
  return {
    unlisted: objects.filter((object) => !listed.has(objectKey(object))),
    stale: allowlist.filter((entry) => !present.has(objectKey(entry))),
  };
}

function objectKey(object: SqlObject): string {
  return JSON.stringify([object.kind, object.table ?? null, object.name]);
}
