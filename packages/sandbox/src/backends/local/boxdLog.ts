import { open, rename, stat } from "node:fs/promises";

// boxd's stdout and stderr go to <box>/boxd.log, not to a pipe: a pipe would tie the detached
// boxd to this process (and it would die of SIGPIPE once we exit). We read its `listening` line
// back from the file instead.

/** A log past this size is moved to boxd.log.1 before the next start (one generation kept). */
const ROTATE_BYTES = 8 * 1024 * 1024;
/** The most read back at once while waiting for the listening line. */
const READ_LIMIT = 1024 * 1024;

export async function logSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
}

export async function rotateIfLarge(path: string): Promise<void> {
  if ((await logSize(path)) > ROTATE_BYTES) await rename(path, `${path}.1`);
}

async function readRange(path: string, range: { readonly from: number; readonly limit: number }) {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(range.limit);
    const { bytesRead } = await handle.read(buffer, 0, range.limit, range.from);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

/** The socket of the first `listening` line written after `offset`, if there is one yet. */
export async function findListeningSocket(
  path: string,
  offset: number,
): Promise<string | undefined> {
  const text = await readRange(path, { from: offset, limit: READ_LIMIT });
  for (const line of text.split("\n")) {
    if (!line.includes('"listening"')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: unknown; socket?: unknown };
      if (entry.msg === "listening" && typeof entry.socket === "string") return entry.socket;
    } catch {
      // A line still being written: read again on the next poll.
    }
  }
  return undefined;
}

/** The last lines of the log (for errors that say why boxd did not start). */
export async function lastLines(path: string, count: number): Promise<string[]> {
  try {
    const size = await logSize(path);
    const limit = Math.min(size, 16 * 1024);
    const text = await readRange(path, { from: size - limit, limit });
    return text.trimEnd().split("\n").slice(-count);
  } catch {
    return [];
  }
}
