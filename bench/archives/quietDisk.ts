import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";

/**
 * This machine's disk is ext4 without a journal. There, for 60 s after an inode is deleted,
 * and for 360 s while its inode table block is dirty, every new inode's allocation steps past
 * it (`recently_deleted` in fs/ext4/ialloc.c, RECENTCY_MIN and RECENTCY_DIRTY) — and writing
 * new files dirties those very blocks. A run's cleanup deletes a couple of hundred thousand
 * files, so the next run's extractions come out up to half again slower for about six minutes
 * (restore140: 1.46 s on a quiet disk; 1.83 s, then 2.20 s, in runs started 45 s after
 * another's cleanup). A full run therefore starts no sooner than that after the last one's
 * cleanup, which marks when it ended.
 */
const RECENTLY_DELETED_MS = 360_000;
const MARK = join(tmpdir(), "berth-bench-archives.cleaned-at");

export async function markCleanup(): Promise<void> {
  await writeFile(MARK, String(Date.now()));
}

export async function awaitQuietDisk(progress: (message: string) => void): Promise<void> {
  let cleanedAt: number;
  try {
    cleanedAt = Number(await readFile(MARK, "utf8"));
  } catch {
    return;
  }
  const waitMs = cleanedAt + RECENTLY_DELETED_MS - Date.now();
  if (!(waitMs > 0)) return;
  progress(
    `waiting ${String(Math.ceil(waitMs / 1000))} s: the last run's cleanup deleted its files ` +
      `${String(Math.round((Date.now() - cleanedAt) / 1000))} s ago, and ext4 without a journal ` +
      `slows new files for up to 6 minutes after a deletion (see quietDisk.ts)`,
  );
  await delay(waitMs);
}
