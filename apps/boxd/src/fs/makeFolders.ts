import { lstat, mkdir, open, rmdir, type FileHandle } from "node:fs/promises";
import { BoxError } from "@berth/box-protocol";
import { errnoOf, fsError } from "./fsErrors.ts";
import { at, DIRECTORY_FLAGS, reopen, type WorkspaceRoot } from "./workspaceRoot.ts";

// `mkdir -p` inside the workspace, in one walk down from the root: each level is entered from
// the folder held above it (never resolved again from the root, which made a deep path cost
// the square of its depth), and a call that fails part-way takes back the folders it made.

interface Link {
  readonly name: string;
  /** Made by this call (false: someone else made it meanwhile; it is never removed). */
  readonly made: boolean;
  /** The folder's inode when it was entered: undo removes that folder, not a stand-in. */
  readonly ino: number;
}

/**
 * The folders one call made, to take back if the call (or what they were made for: a write
 * with `createParents`) fails: a refusal leaves nothing behind. Holds one handle, on the folder
 * the first made one is in, until `release`.
 */
export class MadeFolders {
  constructor(
    private readonly anchor: FileHandle | undefined,
    /** From the anchor down: `links[0]` is in the anchor, each next one in the one before. */
    private readonly links: readonly Link[],
  ) {}

  /**
   * Removes the folders this call made, deepest first, and only while each is still the one
   * it made and empty (rmdir): a folder someone has since written into stays, with those
   * above it, so nothing anyone wrote is lost.
   */
  async undo(): Promise<void> {
    if (this.anchor === undefined) return;
    const parents: FileHandle[] = [this.anchor];
    const reached: FileHandle[] = [];
    try {
      for (const link of this.links) {
        const parent = parents.at(-1);
        if (parent === undefined) break;
        const folder = await open(at(parent, link.name), DIRECTORY_FLAGS).catch(() => undefined);
        if (folder === undefined) break;
        reached.push(folder);
        if ((await folder.stat()).ino !== link.ino) break;
        parents.push(folder);
      }
      // parents[i] holds links[i]; only links whose folder was reached as made can go.
      for (let level = parents.length - 2; level >= 0; level -= 1) {
        const link = this.links[level];
        const parent = parents[level];
        if (link === undefined || parent === undefined || !link.made) break;
        const removed = await rmdir(at(parent, link.name)).then(
          () => true,
          () => false,
        );
        if (!removed) break;
      }
    } finally {
      await Promise.all(reached.map((folder) => folder.close()));
    }
  }

  /** Closes the handle undo needs; call once the made folders are kept or taken back. */
  async release(): Promise<void> {
    await this.anchor?.close();
  }
}

/**
 * Makes the folder at `components` and every missing one above it; one that exists (or a
 * symlink to a folder inside the workspace) is entered. On failure the made folders are
 * removed before the error is thrown; on success the caller owns the result (undo, release).
 */
export async function makeFolders(
  root: WorkspaceRoot,
  target: { readonly components: readonly string[]; readonly shownPath: string },
): Promise<MadeFolders> {
  const { components, shownPath } = target;
  root.assertFits(components);
  let directory = await root.openRoot();
  let anchor: FileHandle | undefined;
  const links: Link[] = [];
  try {
    for (let level = 0; level < components.length; level += 1) {
      const name = components[level] ?? "";
      // Whatever is made next is made in a folder that is still inside the workspace.
      await root.assertInside(directory, shownPath);
      let parent = directory;
      let step = await enterOrMake(parent, name);
      if (step.kind === "symlink") {
        // Inside folders this call made, a symlink can only be someone else's doing meanwhile.
        if (anchor !== undefined) throw changedMeanwhile(shownPath);
        // Followed as every path is (inside the workspace only), from the root.
        const resolved = await root.resolve(components.slice(0, level + 1), {
          followLast: true,
          shownPath,
        });
        if (resolved.name === undefined) {
          await directory.close();
          directory = resolved.directory;
          continue;
        }
        // A link to a folder not made yet: it is made where the link points.
        await directory.close();
        directory = resolved.directory;
        parent = directory;
        step = await enterOrMake(parent, resolved.name);
        if (step.kind === "symlink") throw changedMeanwhile(shownPath);
      }
      const entered = step;
      if (entered.made) await root.own(entered.handle);
      if (entered.made && anchor === undefined) {
        anchor = await reopen(parent).catch(async (error: unknown) => {
          // No handle to take it back through later (out of descriptors?): taken back now.
          await entered.handle.close();
          await rmdir(at(parent, entered.name)).catch(() => undefined);
          throw error;
        });
      }
      if (anchor !== undefined)
        links.push({ name: entered.name, made: entered.made, ino: entered.ino });
      await directory.close();
      directory = entered.handle;
    }
    await root.assertInside(directory, shownPath);
    return new MadeFolders(anchor, links);
  } catch (error) {
    const made = new MadeFolders(anchor, links);
    await made.undo();
    await made.release();
    throw fsError(error, shownPath);
  } finally {
    await directory.close();
  }
}

type Step =
  | {
      readonly kind: "entered";
      readonly name: string;
      readonly handle: FileHandle;
      readonly made: boolean;
      readonly ino: number;
    }
  | { readonly kind: "symlink" };

/** Enters folder `name` of `directory`, making it first if it is missing; never follows a link. */
async function enterOrMake(directory: FileHandle, name: string): Promise<Step> {
  const entered = async (made: boolean): Promise<Step> => {
    const handle = await open(at(directory, name), DIRECTORY_FLAGS);
    return { kind: "entered", name, handle, made, ino: (await handle.stat()).ino };
  };
  try {
    return await entered(false);
  } catch (error) {
    const code = errnoOf(error);
    // With O_DIRECTORY the kernel reports a symlink as ENOTDIR (ELOOP without it).
    if (code === "ELOOP" || code === "ENOTDIR") {
      if ((await lstat(at(directory, name))).isSymbolicLink()) return { kind: "symlink" };
      throw error;
    }
    if (code !== "ENOENT") throw error;
  }
  try {
    await mkdir(at(directory, name), 0o755);
  } catch (error) {
    // Made by someone else since we looked: entered as theirs, never removed by us.
    if (errnoOf(error) === "EEXIST") return entered(false);
    throw error;
  }
  try {
    return await entered(true);
  } catch (error) {
    // Made but not entered (replaced meanwhile): not left behind, if it is still empty.
    await rmdir(at(directory, name)).catch(() => undefined);
    throw error;
  }
}

function changedMeanwhile(shownPath: string): BoxError {
  return new BoxError(
    "already_exists",
    `${shownPath}: a folder in it was replaced while it was being made; nothing was kept`,
  );
}
