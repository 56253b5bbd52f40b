import { lstat, open, readdir, rmdir, unlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { errnoOf } from "./fsErrors.ts";
import { DIRECTORY_FLAGS } from "./workspaceRoot.ts";

/**
 * Removes `name` in `parent` and everything below it without ever following a symlink: each
 * folder is opened O_NOFOLLOW relative to its held parent and emptied through its own fd, so
 * a subfolder swapped for a link to /etc mid-way is unlinked as a link, never descended into
 * (a path-based recursive rm re-resolves paths and can be steered outside). Names are handled
 * as bytes, so names that are not UTF-8 go too.
 */
export async function removeTree(
  parent: { readonly fd: number },
  name: string | Buffer,
): Promise<void> {
  const path = atBytes(parent, name);
  const stats = await lstat(path);
  if (!stats.isDirectory()) {
    await unlink(path);
    return;
  }
  let folder: FileHandle;
  try {
    folder = await open(path, DIRECTORY_FLAGS);
  } catch (error) {
    const swapped = errnoOf(error) === "ELOOP" || errnoOf(error) === "ENOTDIR";
    if (!swapped) throw error;
    await unlink(path);
    return;
  }
  try {
    const entries = await readdir(Buffer.from(`/proc/self/fd/${folder.fd}`), {
      encoding: "buffer",
    });
    for (const entry of entries) await removeTree(folder, entry);
  } finally {
    await folder.close();
  }
  await rmdir(path);
}

function atBytes(directory: { readonly fd: number }, name: string | Buffer): Buffer {
  return Buffer.concat([Buffer.from(`/proc/self/fd/${directory.fd}/`), Buffer.from(name)]);
}
