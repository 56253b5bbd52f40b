import {
  closeSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
} from "node:fs";
import type { Stats } from "node:fs";
import { createHash } from "node:crypto";
import { BoxError, compareUtf16, type ManifestEntry } from "@berth/box-protocol";
import { errnoOf } from "./fsErrors.ts";
import { isTempName } from "./tempNames.ts";
import { atFd, DIRECTORY_FLAGS, READ_FLAGS } from "./workspaceRoot.ts";

export interface TreeEntry {
  /** Relative to the walk's start, `/`-separated. */
  readonly path: string;
  /** The held folder the entry is in, and its name there. */
  readonly parentFd: number;
  readonly name: string;
  readonly stats: Stats;
  /** Symlinks only. */
  readonly target?: string;
}

/** Reads files in chunks of this size: memory stays bounded whatever the file. */
export const CHUNK_BYTES = 256 * 1024;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

export interface WalkOptions {
  /** Include boxd's own temp entries (only the start-up sweep wants them). */
  readonly includeTemp?: boolean;
  /** Descend into a folder (the sweep does not descend into temp folders it deletes). */
  readonly descend?: (entry: TreeEntry) => boolean;
}

/**
 * Every entry below the folder `rootFd`, depth first, names in UTF-16 order (parents before
 * children, as a tar extractor needs), boxd's temp entries left out unless asked for. Folders are entered by fd
 * with O_NOFOLLOW from their held parent, so the walk never leaves the tree even if it changes
 * under it; an entry that vanishes meanwhile is skipped. The syscalls are synchronous: a walk is
 * thousands of microsecond calls, and a thread-pool round trip each would cost more than the
 * calls (the consumer still awaits between entries, so boxd keeps serving).
 */
export function* walkTreeSync(
  rootFd: number,
  options: WalkOptions = {},
  prefix = "",
): Generator<TreeEntry> {
  for (const name of readNamesSync(rootFd, prefix, options.includeTemp === true)) {
    const stats = ignoreMissing(() => lstatSync(atFd(rootFd, name)));
    if (stats === undefined) continue;
    const path = prefix === "" ? name : `${prefix}/${name}`;
    const target = stats.isSymbolicLink() ? readlinkSync(atFd(rootFd, name)) : undefined;
    const entry: TreeEntry = { path, parentFd: rootFd, name, stats, target };
    yield entry;
    if (!stats.isDirectory() || options.descend?.(entry) === false) continue;
    const child = ignoreMissing(() => openSync(atFd(rootFd, name), DIRECTORY_FLAGS));
    if (child === undefined) continue;
    try {
      yield* walkTreeSync(child, options, path);
    } finally {
      closeSync(child);
    }
  }
}

function readNamesSync(fd: number, prefix: string, includeTemp: boolean): string[] {
  const raw = readdirSync(atFd(fd, "."), { encoding: "buffer" });
  return decodeNames(raw, (name) => name, prefix)
    .map(({ name }) => name)
    .filter((name) => includeTemp || !isTempName(name))
    .sort(compareUtf16);
}

/**
 * The listed entries of the folder `prefix` with their names decoded. A name that is not UTF-8
 * refuses the whole listing: no path could name it in a manifest or an operation.
 */
export function decodeNames<T>(
  listed: readonly T[],
  rawName: (entry: T) => Buffer,
  prefix: string,
): { name: string; entry: T }[] {
  const decoded: { name: string; entry: T }[] = [];
  let undecodable = 0;
  for (const entry of listed) {
    try {
      decoded.push({ name: strictUtf8.decode(rawName(entry)), entry });
    } catch {
      undecodable += 1;
    }
  }
  if (undecodable > 0) {
    throw new BoxError(
      "invalid_name",
      `${prefix || "the root"} holds ${String(undecodable)} name(s) that are not UTF-8; rename them first`,
    );
  }
  return decoded;
}

/** The manifest line of a folder or symlink; files need their bytes (see readFileExactly). */
export function lineWithoutContent(entry: TreeEntry): ManifestEntry | undefined {
  if (entry.stats.isDirectory()) {
    return { path: entry.path, type: "dir", mode: entry.stats.mode & 0o7777 };
  }
  if (entry.stats.isSymbolicLink()) {
    return { path: entry.path, type: "symlink", mode: 0o777, target: entry.target ?? "" };
  }
  // Sockets, FIFOs and devices are not workspace content.
  return undefined;
}

/** Opens a walked regular file (O_NOFOLLOW, non-blocking: a FIFO swapped in cannot hang us). */
export function openWalkedFile(entry: TreeEntry): { fd: number; size: number; mode: number } {
  const fd = openSync(atFd(entry.parentFd, entry.name), READ_FLAGS);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new BoxError("wrong_type", `${entry.path}: is not a regular file`);
    return { fd, size: stats.size, mode: stats.mode };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * Reads exactly `size` bytes of `fd` in chunks, handing each to `sink` and hashing the same
 * bytes. A file that shrank meanwhile fails the read: the bytes described must be the bytes
 * handed on. Each chunk is a fresh buffer, so a sink may keep it.
 */
export async function readFileExactly(
  fd: number,
  size: number,
  sink: (chunk: Buffer) => Promise<void>,
): Promise<string> {
  const hash = createHash("sha256");
  let position = 0;
  while (position < size) {
    const length = Math.min(CHUNK_BYTES, size - position);
    const buffer = Buffer.allocUnsafe(length);
    const bytesRead = readSync(fd, buffer, 0, length, position);
    if (bytesRead === 0) throw fileShrank();
    const chunk = buffer.subarray(0, bytesRead);
    hash.update(chunk);
    await sink(chunk);
    position += bytesRead;
  }
  return hash.digest("hex");
}

/** A file read to its stat'ed size ended early: it changed while it was read. */
export function fileShrank(): Error {
  return new Error("the file shrank while it was read; try again");
}

/** `work`'s result, or undefined when what it touched vanished (ENOENT) meanwhile. */
export function ignoreMissing<T>(work: () => T): T | undefined {
  try {
    return work();
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return undefined;
    throw error;
  }
}
