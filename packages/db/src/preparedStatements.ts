import { createHash } from "node:crypto";
import type pg from "pg";

const MARKER = "/* prepared */ ";

/**
 * Marks a statement to be prepared once per connection, then only bound and executed: Postgres
 * skips parsing, analysing and planning it on every call. Mark only a fixed statement text (its
 * values bound), never one built from input: every distinct text stays prepared on every
 * connection for the connection's life.
 */
export function preparedOnce(sql: string): string {
  return MARKER + sql;
}

/** What one pool needs to prepare marked statements: a connect hook and the adapter's namer. */
export interface PreparedStatements {
  /** pg-pool's `onConnect`: awaited before a new connection serves its first query. */
  readonly onConnect: (client: pg.ClientBase) => Promise<void>;
  /** The pg adapter's `statementNameGenerator`; "" is pg's unnamed statement, parsed per call. */
  readonly statementNameGenerator: (query: { sql: string }) => string;
}

/**
 * Names marked statements once the pool's server is known to give each connection its own
 * session. PGlite serves every socket connection from one shared session, where a second
 * connection preparing the same name fails ("prepared statement … already exists"); so one new
 * connection at a time asks `version()` until one answers, and until then, or on PGlite, nothing
 * is named. Only the asking connection waits for the answer: a burst of new connections (a cold
 * pool under load) costs one extra round trip, not one each.
 */
export function preparedStatements(): PreparedStatements {
  let sessions: "own" | "shared" | undefined;
  let asking = false;
  const names = new Map<string, string>();
  return {
    async onConnect(client) {
      if (sessions !== undefined || asking) return;
      asking = true;
      try {
        const { rows } = await client.query<{ version: string }>("SELECT version() AS version");
        sessions = /pglite/i.test(rows[0]?.version ?? "") ? "shared" : "own";
      } catch {
        // Unknown: stay unnamed; the connection's first real query reports any real problem.
      } finally {
        asking = false;
      }
    },
    statementNameGenerator({ sql }) {
      if (sessions !== "own" || !sql.startsWith(MARKER)) return "";
      let name = names.get(sql);
      if (name === undefined) {
        name = `berth_${createHash("sha256").update(sql).digest("hex").slice(0, 24)}`;
        names.set(sql, name);
      }
      return name;
    },
  };
}
