import type { Stats } from "node:fs";
import { readdir, readlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import type { FileInfo, FileType } from "@berth/box-protocol";
import { at } from "./workspaceRoot.ts";
import { errnoOf } from "./fsErrors.ts";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

export function typeOf(stats: Stats): FileType {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "dir";
  if (stats.isSymbolicLink()) return "symlink";
  return "other";
}

/** A client-facing description; symlinks carry their stored target. */
export async function describe(
  stats: Stats,
  where: { readonly path: string; readonly name: string; readonly linkPath: string },
): Promise<FileInfo> {
  const type = typeOf(stats);
  const info: FileInfo = {
    path: where.path,
    name: where.name,
    type,
    mode: stats.mode & 0o7777,
    size: stats.size,
    mtimeMs: stats.mtimeMs,
  };
  if (type === "symlink") info.target = await readlink(where.linkPath);
  return info;
}

/**
 * A folder's entry names. Linux names are bytes; one that is not UTF-8 cannot travel in JSON
 * unchanged, so it is reported apart instead of being mangled into a different name.
 */
export async function readNames(
  directory: FileHandle,
): Promise<{ readonly names: string[]; readonly undecodable: number }> {
  const raw = await readdir(at(directory), { encoding: "buffer" });
  const names: string[] = [];
  let undecodable = 0;
  for (const name of raw) {
    try {
      names.push(strictUtf8.decode(name));
    } catch {
      undecodable += 1;
    }
  }
  return { names, undecodable };
}

/** ENOENT as undefined: the entry vanished between readdir and lstat. */
export async function ignoreMissing<T>(work: Promise<T>): Promise<T | undefined> {
  try {
    return await work;
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return undefined;
    throw error;
  }
}
