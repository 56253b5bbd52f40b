import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  futimesSync,
  mkdirSync,
  openSync,
  readFileSync,
  symlinkSync,
  writeSync,
} from "node:fs";
import { BoxError, drainEntry, type ManifestEntry, type PaxHeaders } from "@berth/box-protocol";
import { errnoOf } from "../fs/fsErrors.ts";
import { atFd } from "../fs/workspaceRoot.ts";

const CREATE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * The process umask, read once from /proc (process.umask() can only read it by writing it):
 * files are created with their mode and chmod'ed only where the umask cut it. Unreadable, every
 * file is chmod'ed.
 */
const UMASK = readUmask();

function readUmask(): number {
  try {
    const match = /^Umask:\s+([0-7]+)$/m.exec(readFileSync("/proc/self/status", "utf8"));
    return match?.[1] === undefined ? 0o7777 : Number.parseInt(match[1], 8);
  } catch {
    return 0o7777;
  }
}

export interface EntryToExtract {
  /** The held, already checked parent folder. */
  readonly parentFd: number;
  readonly name: string;
  readonly path: string;
  readonly header: PaxHeaders;
  readonly body: AsyncIterable<Buffer>;
}

/**
 * Creates one archive entry inside its parent folder and returns its manifest line, hashed
 * from the bytes written. Files are created O_EXCL|O_NOFOLLOW: never over an existing entry,
 * never through a link. Syscalls are synchronous (see FolderChain); only the body is awaited.
 */
export async function extractEntry(entry: EntryToExtract): Promise<ManifestEntry> {
  const { path, header } = entry;
  const mode = (header.mode ?? 0o644) & 0o7777;
  const target = atFd(entry.parentFd, entry.name);
  switch (header.type) {
    case "file":
    case undefined:
    case null:
      return writeFile({ target, path, mode, header, body: entry.body });
    case "directory":
      await drainEntry(entry.body);
      try {
        mkdirSync(target, 0o700);
      } catch (error) {
        // Created implicitly for an earlier entry: the explicit entry only sets its mode.
        if (errnoOf(error) !== "EEXIST") throw error;
      }
      return { path, type: "dir", mode };
    case "symlink":
      await drainEntry(entry.body);
      symlinkSync(header.linkname ?? "", target);
      return { path, type: "symlink", mode: 0o777, target: header.linkname ?? "" };
    case "link":
      throw invalid(`${path}: hardlinks are refused (they can alias files outside the tree)`);
    case "character-device":
    case "block-device":
    case "fifo":
    case "contiguous-file":
    case "pax-header":
    case "pax-global-header":
    case "gnu-long-link-path":
    case "gnu-long-path":
      throw invalid(`${path}: ${header.type} entries are refused`);
  }
}

async function writeFile(options: {
  readonly target: string;
  readonly path: string;
  readonly mode: number;
  readonly header: PaxHeaders;
  readonly body: AsyncIterable<Buffer>;
}): Promise<ManifestEntry> {
  let fd: number;
  try {
    // The fd that creates a file may write it whatever its mode (even 0o000).
    fd = openSync(options.target, CREATE_FLAGS, options.mode);
  } catch (error) {
    if (errnoOf(error) === "EEXIST") throw invalid(`${options.path}: appears twice in the archive`);
    throw error;
  }
  try {
    const hash = createHash("sha256");
    let size = 0;
    for await (const chunk of options.body) {
      hash.update(chunk);
      size += chunk.byteLength;
      writeAllSync(fd, chunk);
    }
    if ((options.mode & ~UMASK) !== options.mode) fchmodSync(fd, options.mode);
    if (options.header.mtime !== undefined) {
      futimesSync(fd, options.header.mtime, options.header.mtime);
    }
    return {
      path: options.path,
      type: "file",
      mode: options.mode,
      size,
      sha256: hash.digest("hex"),
    };
  } finally {
    closeSync(fd);
  }
}

/** A single write(2) may write less than asked. */
function writeAllSync(fd: number, chunk: Uint8Array): void {
  let written = 0;
  while (written < chunk.byteLength) {
    written += writeSync(fd, chunk, written, chunk.byteLength - written);
  }
}

function invalid(message: string): BoxError {
  return new BoxError("invalid_archive", message);
}
