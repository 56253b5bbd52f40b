import { chmod, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface EmbeddedDatabase {
  /** A URL any Postgres client can use; every connection shares PGlite's one session. */
  readonly url: string;
  /** The Unix socket it is served on (never a TCP port). */
  readonly socketPath: string;
  close(): Promise<void>;
}

/** Enough for the web pool (10), the worker pool (4), the migration runner and a psql. */
const MAX_CONNECTIONS = 24;

/**
 * The socket's name as libpq and node-postgres derive it from a `host=<folder>` and the default
 * port, so `psql -h <folder>` and a plain URL find it.
 */
const SOCKET_NAME = ".s.PGSQL.5432";

/** sun_path holds 108 bytes with its NUL; Node truncates a longer path silently. */
const MAX_SOCKET_PATH_BYTES = 107;

/** The data folder's socket path would not fit in a Unix socket address. */
export class SocketPathTooLongError extends Error {
  override readonly name = "SocketPathTooLongError";
  constructor(readonly socketPath: string) {
    super(
      `The embedded database's socket path ${socketPath} is ${String(Buffer.byteLength(socketPath))} bytes; ` +
        `a Unix socket path holds at most ${String(MAX_SOCKET_PATH_BYTES)}. Start Berth with a shorter BERTH_DATA_DIR.`,
    );
  }
}

/**
 * Opens (or creates) PGlite in `<dataDir>/pglite` and serves it over the PG protocol on a Unix
 * socket in `<dataDir>/db`. Both folders are mode 0700: PGlite has no passwords (every client is
 * `postgres`), so the filesystem is the only gate, and no TCP port means nothing on the machine's
 * network — a box, another user's process — can reach it at all.
 */
export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  const socketDir = join(dataDir, "db");
  const socketPath = join(socketDir, SOCKET_NAME);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES)
    throw new SocketPathTooLongError(socketPath);
  const pgliteDir = join(dataDir, "pglite");
  for (const folder of [socketDir, pgliteDir]) {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    // mkdir's mode does not change a folder an older Berth made; chmod does.
    await chmod(folder, 0o700);
  }
  // A killed launcher leaves its socket file behind; the data folder's lock says it is ours now.
  await rm(socketPath, { force: true });
  const db = await PGlite.create(pgliteDir);
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: MAX_CONNECTIONS });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    url: embeddedDatabaseUrl(socketDir),
    socketPath,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}

/**
 * A postgresql:// URL that node-postgres (and so Prisma's adapter) reads as "the socket in this
 * folder": its `host` parameter overrides the URL's host. The URL's own host stays `localhost`
 * only because a URL needs one to carry a user.
 */
export function embeddedDatabaseUrl(socketDir: string): string {
  return `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}`;
}
