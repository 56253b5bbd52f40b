import { closeSync, mkdirSync, openSync } from "node:fs";
import { BoxError, type ManifestEntry } from "@berth/box-protocol";
import { errnoOf } from "../fs/fsErrors.ts";
import { atFd, DIRECTORY_FLAGS } from "../fs/workspaceRoot.ts";

/**
 * The open folders from an extraction's staging root down to the current entry's parent. Tar
 * entries arrive parents first, so consecutive entries share most of their chain: each folder
 * is opened (O_NOFOLLOW, from its held parent) once, not once per entry below it. The calls
 * are synchronous on purpose: per-entry metadata syscalls are microseconds each, and a thread
 * pool round trip per call would cost more than the call.
 */
export class FolderChain {
  readonly #root: number;
  readonly #chain: { readonly path: string; readonly fd: number }[] = [];

  constructor(rootFd: number) {
    this.#root = rootFd;
  }

  /** The fd of `components`' parent folder, creating missing folders (recorded as 0755). */
  enter(components: readonly string[], entries: Map<string, ManifestEntry>): number {
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
      const name = components[level] ?? "";
      const path = components.slice(0, level + 1).join("/");
      const parent = this.#chain.at(-1)?.fd ?? this.#root;
      const existing = entries.get(path);
      if (existing?.type === "symlink") {
        throw escapes(path, "is a symlink, and entries below it would be written through it");
      }
      if (existing === undefined) {
        mkdirSync(atFd(parent, name), 0o755);
        entries.set(path, { path, type: "dir", mode: 0o755 });
      }
      this.#chain.push({ path, fd: openFolder(parent, name, path) });
    }
    return this.#chain.at(-1)?.fd ?? this.#root;
  }

  close(): void {
    this.#closeFrom(0);
  }

  #closeFrom(level: number): void {
    while (this.#chain.length > level) {
      const folder = this.#chain.pop();
      if (folder !== undefined) closeSync(folder.fd);
    }
  }
}

function openFolder(parent: number, name: string, path: string): number {
  try {
    return openSync(atFd(parent, name), DIRECTORY_FLAGS);
  } catch (error) {
    // Only what this archive created is here, and its symlinks are caught above; this is
    // the kernel's word for the same thing, should anything else have put a link there.
    if (errnoOf(error) === "ELOOP") throw escapes(path, "is a symlink");
    if (errnoOf(error) === "ENOTDIR") {
      throw new BoxError(
        "invalid_archive",
        `${path}: is not a folder, and entries follow below it`,
      );
    }
    throw error;
  }
}

function escapes(path: string, why: string): BoxError {
  return new BoxError("outside_workspace", `${path}: ${why}; refused`);
}
