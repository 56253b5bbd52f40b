import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Another live process owns the data folder. */
export class DataDirLockedError extends Error {
  override readonly name = "DataDirLockedError";
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    super(
      `Berth is already running on ${dataDir} (pid ${holderPid}). Stop that process, or start ` +
        `this one with another BERTH_DATA_DIR.`,
    );
  }
}

export interface DataDirLock {
  readonly path: string;
  release(): Promise<void>;
}

/**
 * Takes the data folder's lockfile, which names our pid. PGlite takes no lock of its own, and
 * two processes on one data folder would silently diverge. A lockfile whose pid is dead was left
 * by a killed launcher and is taken over.
 */
export async function acquireDataDirLock(dataDir: string): Promise<DataDirLock> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, "berth.lock");
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      // "wx": create exclusively, so two launchers racing cannot both succeed.
      await writeFile(path, `${process.pid}\n`, { flag: "wx" });
      return { path, release: () => releaseIfOurs(path) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = await readHolder(path);
    if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
      throw new DataDirLockedError(dataDir, holder);
    }
    await rm(path, { force: true });
  }
  throw new Error(`Could not take the lock ${path}; another launcher keeps replacing it.`);
}

async function readHolder(path: string): Promise<number | undefined> {
  const text = await readFile(path, "utf8").catch(() => "");
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

async function releaseIfOurs(path: string): Promise<void> {
  if ((await readHolder(path)) === process.pid) await rm(path, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
