import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface EmbeddedDatabase {
  /** A URL any Postgres client can use; every connection shares PGlite's one session. */
  readonly url: string;
  close(): Promise<void>;
}

/** Enough for the web pool (10), the worker pool (4), the migration runner and a psql. */
const MAX_CONNECTIONS = 24;

/** Opens (or creates) PGlite in `<dataDir>/pglite` and serves it on 127.0.0.1 over the PG protocol. */
export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  const db = await PGlite.create(join(dataDir, "pglite"));
  const server = new PGLiteSocketServer({
    db,
    host: "127.0.0.1",
    port: 0,
    maxConnections: MAX_CONNECTIONS,
  });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    url: `postgresql://postgres@${server.getServerConn()}/postgres`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
