import { randomUUID } from "node:crypto";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { DbClient } from "@berth/db";
import { z } from "zod";

/** Where the data folder keeps its copy of the installation id. */
export function installationIdFile(dataDir: string): string {
  return join(dataDir, "installation-id");
}

/**
 * The data folder and the database name different installations: two Berths share one of them.
 * Starting would let each take the other's boxes for orphans, so nothing starts until an
 * operator points this one at its own data folder and database.
 */
export class InstallationMismatchError extends Error {
  override readonly name = "InstallationMismatchError";
  readonly folderId: string;
  readonly databaseId: string;

  constructor(options: { file: string; folderId: string; databaseId: string }) {
    super(
      `This data folder belongs to installation ${options.folderId} (${options.file}) but the ` +
        `database to installation ${options.databaseId}: two Berth installations share a data ` +
        "folder or a database. Give each installation its own BERTH_DATA_DIR and DATABASE_URL.",
    );
    this.folderId = options.folderId;
    this.databaseId = options.databaseId;
  }
}

const idSchema = z.uuid();

/**
 * This installation's id, generated once and kept in both the database (the one-row
 * `installation` table) and the data folder (`installation-id`), which must agree:
 * - neither has one (a first start): a new id is written to both;
 * - only the folder has one (a fresh database for this data folder): the database adopts it;
 * - only the database has one (a new replica's or a fresh data folder): the folder adopts it;
 * - both, different: refused (InstallationMismatchError), changing nothing.
 * Processes starting at once agree: the database keeps the first id inserted, and the folder's
 * file is created exclusively, so a loser reads the winner's.
 */
export async function ensureInstallationId(options: {
  readonly db: DbClient;
  readonly dataDir: string;
}): Promise<string> {
  const file = installationIdFile(options.dataDir);
  const folderId = await readFolderId(file);
  await options.db.$executeRaw`
    INSERT INTO installation (id) VALUES (${folderId ?? randomUUID()}::uuid)
    ON CONFLICT (singleton) DO NOTHING`;
  const rows = await options.db.$queryRaw<{ id: string }[]>`SELECT id::text FROM installation`;
  const databaseId = rows[0]?.id;
  if (databaseId === undefined) throw new Error("the installation row vanished as it was written");
  if (folderId === undefined) {
    await mkdir(options.dataDir, { recursive: true });
    try {
      await writeFile(file, `${databaseId}\n`, { flag: "wx" });
      return databaseId;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const written = await readFolderId(file);
    if (written !== databaseId)
      throw new InstallationMismatchError({ file, folderId: written ?? "", databaseId });
    return databaseId;
  }
  if (folderId !== databaseId) throw new InstallationMismatchError({ file, folderId, databaseId });
  return databaseId;
}

async function readFolderId(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const parsed = idSchema.safeParse(text.trim());
  if (!parsed.success)
    throw new Error(`${file} does not hold an installation id (a UUID); restore or remove it`);
  return parsed.data;
}

/**
 * The installation id as a process asks for it lazily (the API is built synchronously): read
 * once and kept; a failure (the database not reachable yet) is asked again on the next call.
 */
export function lazyInstallationId(options: {
  readonly db: DbClient;
  readonly dataDir: string;
}): () => Promise<string> {
  let known: Promise<string> | undefined;
  return () => {
    known ??= ensureInstallationId(options).catch((error: unknown) => {
      known = undefined;
      throw error;
    });
    return known;
  };
}
