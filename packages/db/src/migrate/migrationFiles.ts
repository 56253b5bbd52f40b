import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** One migration as Prisma lays it out: `<dir>/<name>/migration.sql`. */
export interface MigrationFile {
  readonly name: string;
  readonly path: string;
  readonly sql: string;
  /** sha256 of the file's bytes, hex: the checksum Prisma records in `_prisma_migrations`. */
  readonly checksum: string;
}

/** The repository's migrations folder (`prisma/migrations` at the top level). */
export const defaultMigrationsDir = fileURLToPath(
  new URL("../../../../prisma/migrations", import.meta.url),
);

/** Reads every migration under `dir`, ordered by name (Prisma names start with a timestamp). */
export async function readMigrationFiles(
  dir: string = defaultMigrationsDir,
): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const path = join(dir, name, "migration.sql");
      const bytes = await readFile(path);
      return {
        name,
        path,
        sql: bytes.toString("utf8"),
        checksum: createHash("sha256").update(bytes).digest("hex"),
      };
    }),
  );
}

/** A short hash of every migration's name and checksum: changes whenever any migration does. */
export function migrationsFingerprint(files: readonly MigrationFile[]): string {
  const hash = createHash("sha256");
  for (const file of files) hash.update(`${file.name}:${file.checksum}\n`);
  return hash.digest("hex").slice(0, 16);
}
