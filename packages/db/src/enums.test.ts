import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "../test/scratchDatabase.ts";
import { checkedColumns } from "./enums.ts";
import { applyMigrations } from "./migrate/runner.ts";

// The closed unions of enums.ts and the SQL CHECKs of the migrations must allow exactly the
// same values: a value only TypeScript knows fails at insert, one only SQL knows escapes the
// type checker.

/**
 * CHECKs on text columns that are not value sets (a length limit, say). Named here so that a
 * value-set CHECK written in a shape the parser does not read fails instead of being skipped.
 */
const notValueSetChecks: ReadonlySet<string> = new Set<string>([]);

interface TextCheck {
  readonly table: string;
  readonly column: string;
  readonly name: string;
  readonly definition: string;
}

type CheckedTable = (typeof checkedColumns)[number]["table"];

const newWorkspace = `w AS (INSERT INTO workspaces (slug, name) VALUES (gen_random_uuid()::text, 'w') RETURNING id)`;
const newLease = `l AS (INSERT INTO sandbox_leases (workspace_id, sandbox_group_id, backend, expires_at)
                         SELECT w.id, gen_random_uuid(), 'local', now() FROM w RETURNING id)`;

/**
 * An insert of one row whose checked column is `$1` (every other column valid), with fresh
 * parent rows so it can repeat.
 */
function insertWith(table: CheckedTable, column: string): string {
  switch (table) {
    case "memberships":
      return `WITH ${newWorkspace},
         u AS (INSERT INTO users (email, name) VALUES (gen_random_uuid()::text, 'u') RETURNING id)
    INSERT INTO memberships (workspace_id, user_id, role) SELECT w.id, u.id, $1 FROM w, u`;
    case "api_tokens":
      return `WITH ${newWorkspace},
         u AS (INSERT INTO users (email, name) VALUES (gen_random_uuid()::text, 'u') RETURNING id)
    INSERT INTO api_tokens (workspace_id, user_id, name, token_hash, role)
    SELECT w.id, u.id, 't', gen_random_uuid()::text, $1 FROM w, u`;
    case "invitations":
      return `WITH ${newWorkspace},
         u AS (INSERT INTO users (email, name) VALUES (gen_random_uuid()::text, 'u') RETURNING id)
    INSERT INTO invitations (workspace_id, role, token_hash, created_by_id, expires_at)
    SELECT w.id, $1, gen_random_uuid()::text, u.id, now() FROM w, u`;
    case "sessions":
      return `WITH ${newWorkspace}
    INSERT INTO sessions (workspace_id, sandbox_group_id, backend) SELECT w.id, gen_random_uuid(), $1 FROM w`;
    case "sandbox_leases":
      // A box's isolation and network are recorded together, with its instance
      // (sandbox_leases_box_check): the column under test is $1, its partner a valid value.
      if (column === "box_isolation" || column === "box_network")
        return `WITH ${newWorkspace} INSERT INTO sandbox_leases (workspace_id, sandbox_group_id, backend, expires_at, instance_id, box_isolation, box_network)
             SELECT w.id, gen_random_uuid(), 'local', now(), 'box', ${column === "box_isolation" ? "$1" : "'none'"}, ${column === "box_network" ? "$1" : "'none'"} FROM w`;
      return column === "backend"
        ? `WITH ${newWorkspace} INSERT INTO sandbox_leases (workspace_id, sandbox_group_id, backend, expires_at)
             SELECT w.id, gen_random_uuid(), $1, now() FROM w`
        : `WITH ${newWorkspace} INSERT INTO sandbox_leases (workspace_id, sandbox_group_id, backend, expires_at, "${column}")
             SELECT w.id, gen_random_uuid(), 'local', now(), $1 FROM w`;
    case "lease_holders":
      return `WITH ${newWorkspace}, ${newLease}
    INSERT INTO lease_holders (lease_id, kind, holder_id, subject_id, last_heartbeat_at, created_at)
    SELECT l.id, $1, gen_random_uuid()::text, gen_random_uuid(), now(), now() FROM l`;
    case "workspace_archives":
      return `WITH ${newWorkspace}, ${newLease}
    INSERT INTO workspace_archives (workspace_id, lease_id, revision, generation, size_bytes, file_count, storage_key, sha256, status, created_at)
    SELECT w.id, l.id, gen_random_uuid()::text, 0, 1, 1, 'k', 's', $1, now() FROM w, l`;
    case "rematerializations":
      return `WITH ${newWorkspace}, ${newLease}
    INSERT INTO rematerializations (id, workspace_id, lease_id, epoch, selected_revision, status, started_at)
    SELECT gen_random_uuid(), w.id, l.id, 0, 'r', $1, now() FROM w, l`;
    case "mutation_admissions":
      return `WITH ${newWorkspace}, ${newLease}
    INSERT INTO mutation_admissions (workspace_id, lease_id, session_id, generation, epoch, instance_id, holder_kind,
                                     holder_id, route_epoch, operation, outcome, admitted_at, settled_at)
    SELECT w.id, l.id, gen_random_uuid(), 1, 0, 'i', 'direct', 'd', 0, 'write', $1, now(), now() FROM w, l`;
    case "archive_progress":
      return `WITH ${newWorkspace}, ${newLease}
    INSERT INTO archive_progress (lease_id, workspace_id, operation, phase, bytes_done, updated_at)
    SELECT l.id, w.id, ${column === "operation" ? "$1" : "'capture'"}, ${column === "phase" ? "$1" : "'capturing'"}, 0, now() FROM w, l`;
    case "audit_events":
      return `WITH ${newWorkspace}
    INSERT INTO audit_events (workspace_id, actor_kind, actor_id, action, target_kind, target_id, at)
    SELECT w.id, $1, 'a', 'test', 'lease', 'x', now() FROM w`;
    case "session_events":
      return `WITH ${newWorkspace},
         s AS (INSERT INTO sessions (workspace_id, sandbox_group_id, backend)
               SELECT w.id, gen_random_uuid(), 'local' FROM w RETURNING id, workspace_id)
    INSERT INTO session_events (workspace_id, session_id, kind, active_epoch, actor, at)
    SELECT s.workspace_id, s.id, $1, 1, 'user:u', now() FROM s`;
  }
}

/**
 * The allowed values of a value-set CHECK as pg_get_constraintdef prints it: `IN (…)` becomes
 * `(col = ANY (ARRAY['a'::text, …]))`; a single value or an OR chain `((col = 'a'::text) OR …)`.
 */
function allowedValues(definition: string, column: string): string[] | undefined {
  const literal = String.raw`'((?:[^']|'')*)'::(?:text|character varying)`;
  const anyArray = new RegExp(String.raw`^CHECK \(\(${column} = ANY \(ARRAY\[(.*)\]\)\)\)$`).exec(
    definition,
  );
  const list = anyArray?.[1];
  if (list !== undefined) {
    const items = list.split(", ");
    const values = items.map((item) =>
      new RegExp(`^${literal}$`).exec(item)?.[1]?.replaceAll("''", "'"),
    );
    return values.every((value) => value !== undefined) ? values : undefined;
  }
  const body = /^CHECK \((.*)\)$/.exec(definition)?.[1];
  if (body === undefined) return undefined;
  const equality = new RegExp(String.raw`^\(*${column} = ${literal}\)*$`);
  const values = body.split(" OR ").map((part) => equality.exec(part)?.[1]?.replaceAll("''", "'"));
  return values.every((value) => value !== undefined) ? values : undefined;
}

let db: ScratchDatabase;
let client: pg.Client;
let checks: TextCheck[];

beforeAll(async () => {
  db = await createScratchDatabase();
  await applyMigrations({ connectionString: db.url });
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const result = await client.query<TextCheck>(`
    SELECT t.relname AS table, a.attname AS column, k.conname AS name, pg_get_constraintdef(k.oid) AS definition
      FROM pg_constraint k
      JOIN pg_class t ON t.oid = k.conrelid
      JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
     WHERE k.contype = 'c' AND t.relnamespace = 'public'::regnamespace
       AND cardinality(k.conkey) = 1 AND a.atttypid IN ('text'::regtype, 'varchar'::regtype)
     ORDER BY 1, 2, 3`);
  checks = result.rows;
});

afterAll(async () => {
  await client.end();
  await db[Symbol.asyncDispose]();
});

describe("enums.ts against the migrations' CHECK constraints", () => {
  it("finds the CHECKs to compare", () => {
    expect(checks.length).toBeGreaterThan(0);
  });

  it("has a checkedColumns entry with exactly the allowed values for every value-set CHECK", () => {
    for (const check of checks.filter((c) => !notValueSetChecks.has(c.name))) {
      const allowed = allowedValues(check.definition, check.column);
      expect(allowed, `cannot read the values of ${check.name}: ${check.definition}`).toBeDefined();
      const entry = checkedColumns.find(
        (e) => e.table === check.table && e.column === check.column,
      );
      expect(
        entry,
        `${check.table}.${check.column} (${check.name}) has no entry in checkedColumns`,
      ).toBeDefined();
      expect(new Set(entry?.values), `${check.name} and enums.ts disagree`).toEqual(
        new Set(allowed),
      );
      expect(allowed?.length, `${check.name} lists a value twice`).toBe(new Set(allowed).size);
    }
  });

  it("has a CHECK for every checkedColumns entry", () => {
    for (const entry of checkedColumns) {
      const check = checks.find((c) => c.table === entry.table && c.column === entry.column);
      expect(
        check,
        `${entry.table}.${entry.column} is in checkedColumns but has no CHECK`,
      ).toBeDefined();
    }
  });

  it.each(checkedColumns)(
    "lets Postgres accept every union value of $column on $table",
    async (entry) => {
      for (const value of entry.values) {
        await expect(
          client.query(insertWith(entry.table, entry.column), [value]),
        ).resolves.toMatchObject({
          rowCount: 1,
        });
      }
    },
  );

  it.each(checkedColumns)(
    "makes Postgres reject a value of $column on $table outside the union",
    async (entry) => {
      const outside = `not-a-${entry.column}`;
      expect(entry.values).not.toContain(outside);

      await expect(
        client.query(insertWith(entry.table, entry.column), [outside]),
      ).rejects.toMatchObject({
        code: "23514",
        table: entry.table,
      });
    },
  );
});
