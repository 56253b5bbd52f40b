import { createHash, type Hash } from "node:crypto";
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
import { BoxError } from "@berth/box-protocol";
import { errnoOf } from "../fs/fsErrors.ts";
import { atFd, DIRECTORY_FLAGS } from "../fs/workspaceRoot.ts";

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

/**
 * The filesystem side of an extraction, in the order the archive gives it: folders, symlinks
 * and files created inside a staging folder held as `stagingFd`. The archive has already been
 * checked (names, duplicates, links in the way: see hydrate.ts); this only writes, and maps
 * what the kernel refuses to the archive's fault. Paths are relative, `/`-separated.
 *
 * Consecutive entries share most of their parent folders: the open chain from the staging
 * folder down to the last parent is kept, each folder opened (O_NOFOLLOW, from its held parent)
 * once, not once per entry below it. Calls are synchronous on purpose: per-entry metadata
 * syscalls are microseconds each, and a thread-pool round trip per call would cost more. Safe
 * on any thread of this process (see ExtractionWriter): it only uses fds it opens itself.
 */
export class TreeOps {
  readonly #root: number;
  readonly #chain: { readonly path: string; readonly fd: number }[] = [];
  #file: OpenFile | undefined;

  constructor(stagingFd: number) {
    this.#root = stagingFd;
  }

  /** A folder, with this mode until the extraction sets folder modes last. */
  mkdir(path: string, mode: number): void {
    const { parent, name } = this.#enter(path);
    mkdirSync(atFd(parent, name), mode);
  }

  symlink(path: string, target: string): void {
    const { parent, name } = this.#enter(path);
    symlinkSync(target, atFd(parent, name));
  }

  /** Creates the file (never over an entry, never through a link); writes go to it until closeFile. */
  openFile(path: string, mode: number): void {
    const { parent, name } = this.#enter(path);
    try {
      // The fd that creates a file may write it whatever its mode (even 0o000).
      const fd = openSync(atFd(parent, name), CREATE_FLAGS, mode);
      this.#file = { path, fd, hash: createHash("sha256") };
    } catch (error) {
      if (errnoOf(error) === "EEXIST") throw invalid(`${path}: appears twice in the archive`);
      throw error;
    }
  }

  write(bytes: Uint8Array): void {
    const { fd, hash } = this.#openFile();
    hash.update(bytes);
    // A single write(2) may write less than asked.
    let written = 0;
    while (written < bytes.byteLength) {
      written += writeSync(fd, bytes, written, bytes.byteLength - written);
    }
  }

  /** Finishes the file; answers the sha256 of the bytes written to it, for its manifest line. */
  closeFile(mode: number, mtime: Date | undefined): string {
    const { fd, hash } = this.#openFile();
    this.#file = undefined;
    try {
      if ((mode & ~UMASK) !== mode) fchmodSync(fd, mode);
      if (mtime !== undefined) futimesSync(fd, mtime, mtime);
    } finally {
      closeSync(fd);
    }
    return hash.digest("hex");
  }

  /** Releases every fd it holds (after the last entry, or when the extraction fails). */
  close(): void {
    if (this.#file !== undefined) closeSync(this.#file.fd);
    this.#file = undefined;
    this.#closeFrom(0);
  }

  #openFile(): OpenFile {
    if (this.#file === undefined) throw new Error("no file is open in this extraction");
    return this.#file;
  }

  /** The held parent folder of `path`, and the name in it. */
  #enter(path: string): { parent: number; name: string } {
    const components = path.split("/");
    const depth = components.length - 1;
    let kept = 0;
    while (
      kept < this.#chain.length &&
      kept < depth &&
      this.#chain[kept]?.path === components.slice(0, kept + 1).join("/")
    ) {
      kept += 1;
    }
    this.#closeFrom(kept);
    for (let level = kept; level < depth; level += 1) {
      const folder = components.slice(0, level + 1).join("/");
      const parent = this.#chain.at(-1)?.fd ?? this.#root;
      this.#chain.push({ path: folder, fd: openFolder(parent, components[level] ?? "", folder) });
    }
    return { parent: this.#chain.at(-1)?.fd ?? this.#root, name: components.at(-1) ?? "" };
  }

  #closeFrom(level: number): void {
    while (this.#chain.length > level) {
      const folder = this.#chain.pop();
      if (folder !== undefined) closeSync(folder.fd);
    }
  }
}

interface OpenFile {
  readonly path: string;
  readonly fd: number;
  /** Of every byte written, as it is written. */
  readonly hash: Hash;
}

function openFolder(parent: number, name: string, path: string): number {
  try {
    return openSync(atFd(parent, name), DIRECTORY_FLAGS);
  } catch (error) {
    // The archive's own symlinks are refused before any write; this is the kernel's word for
    // the same thing, should anything else have put a link there.
    if (errnoOf(error) === "ELOOP") {
      throw new BoxError("outside_workspace", `${path}: is a symlink; refused`);
    }
    if (errnoOf(error) === "ENOTDIR") {
      throw invalid(`${path}: is not a folder, and entries follow below it`);
    }
    throw error;
  }
}

function invalid(message: string): BoxError {
  return new BoxError("invalid_archive", message);
}
