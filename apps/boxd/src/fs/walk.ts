import type { Stats } from "node:fs";
import { lstat, open, readlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { BoxError, compareUtf16 } from "@berth/box-protocol";
import { ignoreMissing, readNames } from "./fileInfo.ts";
import { isTempName } from "./tempNames.ts";
import { at, DIRECTORY_FLAGS } from "./workspaceRoot.ts";

export interface WalkEntry {
  /** Relative to the walk's start, `/`-separated. */
  readonly path: string;
  /** The folder holding the entry (held open while the consumer handles the entry). */
  readonly parent: FileHandle;
  readonly name: string;
  readonly stats: Stats;
  /** Symlinks only. */
  readonly target?: string;
}

export interface WalkOptions {
  /** Include boxd's own temp entries (only the start-up sweep wants them). */
  readonly includeTemp?: boolean;
  /** Descend into folders (the sweep does not descend into temp folders it deletes). */
  readonly descend?: (entry: WalkEntry) => boolean;
}

/**
 * Every entry below `folder`, depth first, names in UTF-16 order, so parents come before their
 * children (what a tar extractor needs). Folders are entered by fd with O_NOFOLLOW from their
 * held parent, so the walk never leaves the tree even if it changes under it. A name that is
 * not UTF-8 fails the walk: such a name cannot be put in a manifest unchanged.
 */
export async function* walkTree(
  folder: FileHandle,
  options: WalkOptions = {},
  prefix = "",
): AsyncGenerator<WalkEntry> {
  const { names, undecodable } = await readNames(folder);
  if (undecodable > 0) {
    throw new BoxError(
      "invalid_name",
      `${prefix || "the root"} holds ${undecodable} name(s) that are not UTF-8; rename them first`,
    );
  }
  const wanted = names.filter((name) => options.includeTemp === true || !isTempName(name));
  for (const name of wanted.sort(compareUtf16)) {
    const stats = await ignoreMissing(lstat(at(folder, name)));
    if (stats === undefined) continue;
    const path = prefix === "" ? name : `${prefix}/${name}`;
    const target = stats.isSymbolicLink() ? await readlink(at(folder, name)) : undefined;
    const entry: WalkEntry = { path, parent: folder, name, stats, target };
    yield entry;
    if (!stats.isDirectory() || options.descend?.(entry) === false) continue;
    const child = await ignoreMissing(open(at(folder, name), DIRECTORY_FLAGS));
    if (child === undefined) continue;
    try {
      yield* walkTree(child, options, path);
    } finally {
      await child.close();
    }
  }
}
