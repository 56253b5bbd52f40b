import { closeSync, fstatSync, openSync, readdirSync, readlinkSync, readSync } from "node:fs";
import type { Dirent } from "node:fs";
import { createHash } from "node:crypto";
import { BoxError, type ManifestEntry } from "@berth/box-protocol";
import { isTempName } from "../fs/tempNames.ts";
import { CHUNK_BYTES, decodeNames, fileShrank, ignoreMissing } from "../fs/treeWalk.ts";
import { atFd, DIRECTORY_FLAGS, READ_FLAGS } from "../fs/workspaceRoot.ts";

/**
 * One piece of a manifest build, small enough to hand to any thread: list a folder (its own
 * line, its symlinks, its first files), or hash more of a listed folder's files. Paths are
 * relative to the workspace root, `/`-separated; "" is the root.
 */
export type ManifestJob =
  | { readonly kind: "folder"; readonly path: string }
  | { readonly kind: "files"; readonly path: string; readonly names: readonly string[] };

export interface ManifestJobResult {
  readonly entries: ManifestEntry[];
  /** What the job found to do next: the folder's subfolders, and the files past its first batch. */
  readonly next: ManifestJob[];
}

/**
 * Files one job hashes. A folder of thousands of files is so split into jobs that several
 * threads share, and one job's answer stays a few kilobytes.
 */
export const FILES_PER_JOB = 64;

/**
 * Runs one job against the workspace whose root folder is held as `rootFd`. Synchronous, like
 * the tree walk (thousands of microsecond syscalls; see walkTreeSync), and safe on any thread of
 * this process: it only uses fds it opens itself, beside `rootFd`. Folders are entered component
 * by component with O_NOFOLLOW, files opened O_NOFOLLOW, so nothing is read through a link even
 * if the tree changes meanwhile; an entry that vanishes meanwhile is left out. The listing's own
 * entry types spare a stat per file: the file's fstat, taken anyway, gives its size and mode.
 */
export function runManifestJob(rootFd: number, job: ManifestJob): ManifestJobResult {
  const folderFd = openFolder(rootFd, job.path);
  if (folderFd === undefined) return { entries: [], next: [] };
  try {
    return job.kind === "folder"
      ? listFolder(folderFd, job.path)
      : { entries: hashFiles(folderFd, job.path, job.names), next: [] };
  } finally {
    closeSync(folderFd);
  }
}

function listFolder(fd: number, path: string): ManifestJobResult {
  const entries: ManifestEntry[] = [];
  if (path !== "") entries.push({ path, type: "dir", mode: fstatSync(fd).mode & 0o7777 });
  const next: ManifestJob[] = [];
  const files: string[] = [];
  for (const { name, entry: dirent } of listNames(fd, path)) {
    const child = path === "" ? name : `${path}/${name}`;
    if (dirent.isDirectory()) next.push({ kind: "folder", path: child });
    else if (dirent.isFile()) files.push(name);
    else if (dirent.isSymbolicLink()) {
      const target = ignoreMissing(() => readlinkSync(atFd(fd, name)));
      if (target !== undefined) entries.push({ path: child, type: "symlink", mode: 0o777, target });
    }
    // Sockets, FIFOs and devices are not workspace content.
  }
  entries.push(...hashFiles(fd, path, files.slice(0, FILES_PER_JOB)));
  for (let start = FILES_PER_JOB; start < files.length; start += FILES_PER_JOB) {
    next.push({ kind: "files", path, names: files.slice(start, start + FILES_PER_JOB) });
  }
  return { entries, next };
}

/** The folder's entries, boxd's temp entries left out; a name that is not UTF-8 is refused. */
function listNames(fd: number, path: string): { name: string; entry: Dirent<Buffer> }[] {
  const listed = readdirSync(atFd(fd, "."), { encoding: "buffer", withFileTypes: true });
  return decodeNames(listed, (dirent) => dirent.name, path).filter(({ name }) => !isTempName(name));
}

/** One buffer per thread serves every read: nothing keeps a chunk past its hashing. */
let readBuffer: Buffer | undefined;

function hashFiles(folderFd: number, path: string, names: readonly string[]): ManifestEntry[] {
  const entries: ManifestEntry[] = [];
  for (const name of names) {
    // Non-blocking: a FIFO swapped in for the file cannot hang the read.
    const fd = ignoreMissing(() => openSync(atFd(folderFd, name), READ_FLAGS));
    if (fd === undefined) continue;
    const filePath = path === "" ? name : `${path}/${name}`;
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) throw new BoxError("wrong_type", `${filePath}: is not a regular file`);
      entries.push({
        path: filePath,
        type: "file",
        mode: stats.mode & 0o7777,
        size: stats.size,
        sha256: hashExactly(fd, stats.size),
      });
    } finally {
      closeSync(fd);
    }
  }
  return entries;
}

/** The sha256 of exactly `size` bytes of `fd`; a file that shrank meanwhile fails the read. */
function hashExactly(fd: number, size: number): string {
  readBuffer ??= Buffer.allocUnsafe(CHUNK_BYTES);
  const hash = createHash("sha256");
  let position = 0;
  while (position < size) {
    const bytesRead = readSync(fd, readBuffer, 0, Math.min(CHUNK_BYTES, size - position), position);
    if (bytesRead === 0) throw fileShrank();
    hash.update(readBuffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hash.digest("hex");
}

/** The folder at `path`, entered from the root one held component at a time. */
function openFolder(rootFd: number, path: string): number | undefined {
  let fd = openSync(atFd(rootFd, "."), DIRECTORY_FLAGS);
  if (path === "") return fd;
  for (const name of path.split("/")) {
    const next = ignoreMissing(() => openSync(atFd(fd, name), DIRECTORY_FLAGS));
    closeSync(fd);
    if (next === undefined) return undefined;
    fd = next;
  }
  return fd;
}
