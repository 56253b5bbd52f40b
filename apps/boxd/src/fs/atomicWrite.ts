import { constants } from "node:fs";
import { createHash } from "node:crypto";
import { lstat, open, rename, unlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { BoxError, type WriteResponse } from "@berth/box-protocol";
import { ignoreMissing } from "./fileInfo.ts";
import { fsError } from "./fsErrors.ts";
import { KeyedLock } from "./keyedLock.ts";
import { makeFolders } from "./makeFolders.ts";
import { newTempName } from "./tempNames.ts";
import { writeAll } from "./writeAll.ts";
import { joinPath, parseWorkspacePath } from "./workspacePath.ts";
import { at, READ_FLAGS, type WorkspaceRoot } from "./workspaceRoot.ts";

const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

export interface AtomicWriteOptions {
  readonly path: string;
  /** The new content, streamed: never held whole. */
  readonly content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  /** undefined: unconditional; null: the file must not exist; a version: it must be this one. */
  readonly expectedVersion?: string | null | undefined;
  readonly mode?: number | undefined;
  readonly createParents: boolean;
}

/** Serializes the precondition check and the rename of writes to one file within boxd. */
const renames = new KeyedLock();

/**
 * Writes a file so that readers — and a boxd killed at any instant — see the old content or
 * the new, never a mix: the bytes go to a temp file in the same folder (same filesystem, so
 * rename is atomic), which is fsynced, then renamed over the target; the folder is fsynced so
 * the rename itself survives a crash. A temp file left by a kill is hidden and swept at the
 * next start. The version precondition is checked before streaming (to fail fast) and again
 * just before the rename, under a per-file lock; writers outside boxd are not serialized.
 */
export async function atomicWrite(
  root: WorkspaceRoot,
  options: AtomicWriteOptions,
): Promise<WriteResponse> {
  const components = parseWorkspacePath(options.path);
  if (components.length === 0) throw new BoxError("wrong_type", "the root is a folder");
  // Before any folder is made for it: a file that cannot fit needs none.
  root.assertFits(components);
  const parents = components.slice(0, -1);
  const made =
    options.createParents && parents.length > 0
      ? await makeFolders(root, { components: parents, shownPath: joinPath(parents) })
      : undefined;
  try {
    return await replaceFile(root, components, options);
  } catch (error) {
    // A refused or broken write leaves no file, and none of the folders it made for one.
    await made?.undo();
    throw error;
  } finally {
    await made?.release();
  }
}

/** The write itself, into a folder that exists: temp file, fsync, precondition, rename. */
async function replaceFile(
  root: WorkspaceRoot,
  components: readonly string[],
  options: AtomicWriteOptions,
): Promise<WriteResponse> {
  const path = joinPath(components);
  const resolved = await root.resolve(components, { followLast: true, shownPath: path });
  const { directory, name } = resolved;
  try {
    if (name === undefined) throw new BoxError("wrong_type", `${path}: is a folder`);
    const target = at(directory, name);
    const existing = await checkPrecondition(target, options.expectedVersion, path);
    const tempName = newTempName("write");
    const temp = await open(at(directory, tempName), TEMP_FLAGS, 0o600);
    // An object, not a boolean: the rename happens inside a callback.
    const done = { renamed: false };
    try {
      await root.own(temp);
      const { version, size } = await copyInto(temp, options.content);
      await temp.sync();
      const key = `${resolved.directoryPath.join("/")}/${name}`;
      await renames.run(key, async () => {
        const current = await checkPrecondition(target, options.expectedVersion, path);
        await temp.chmod(options.mode ?? current?.mode ?? existing?.mode ?? 0o644);
        await temp.close();
        await rename(at(directory, tempName), target);
        done.renamed = true;
      });
      await directory.sync();
      return { path, version, size };
    } finally {
      if (!done.renamed) {
        await temp.close().catch(() => undefined);
        await unlink(at(directory, tempName)).catch(() => undefined);
      }
    }
  } catch (error) {
    throw fsError(error, path);
  } finally {
    await directory.close();
  }
}

async function copyInto(
  file: FileHandle,
  content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): Promise<{ version: string; size: number }> {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of content) {
    hash.update(chunk);
    size += chunk.byteLength;
    await writeAll(file, chunk);
  }
  return { version: hash.digest("hex"), size };
}

/** Checks the precondition against what is at `target` now; returns its mode if it exists. */
async function checkPrecondition(
  target: string,
  expected: string | null | undefined,
  path: string,
): Promise<{ mode: number } | undefined> {
  const stats = await ignoreMissing(lstat(target));
  if (stats?.isDirectory() === true) throw new BoxError("wrong_type", `${path}: is a folder`);
  const existing = stats === undefined ? undefined : { mode: stats.mode & 0o7777 };
  if (expected === undefined) return existing;
  if (expected === null) {
    if (stats !== undefined) throw conflict(`${path} already exists`);
    return existing;
  }
  if (stats === undefined) throw conflict(`${path} no longer exists`);
  const current = await versionOf(target);
  if (current !== expected) throw conflict(`${path} is now at version ${current}`);
  return existing;
}

/** A file's version: the sha256 of its bytes, streamed. */
export async function versionOf(target: string): Promise<string> {
  const file = await open(target, READ_FLAGS);
  try {
    const hash = createHash("sha256");
    for await (const chunk of file.createReadStream({ autoClose: false })) {
      hash.update(chunk as Buffer);
    }
    return hash.digest("hex");
  } finally {
    await file.close();
  }
}

function conflict(message: string): BoxError {
  return new BoxError("version_conflict", `${message}: re-read it and retry`);
}
