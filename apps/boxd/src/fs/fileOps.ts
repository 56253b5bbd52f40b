import { createHash } from "node:crypto";
import { lstat, mkdir, open, rename, rmdir, unlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import {
  BoxError,
  compareUtf16,
  type FileInfo,
  type OperationRequest,
  type OperationResponse,
} from "@berth/box-protocol";
import { MAX_INLINE_BYTES } from "../limits.ts";
import { describe, ignoreMissing, readNames } from "./fileInfo.ts";
import { fsError } from "./fsErrors.ts";
import { removeTree } from "./removeTree.ts";
import { makeFolders } from "./makeFolders.ts";
import { isTempName } from "./tempNames.ts";
import { joinPath, parseWorkspacePath } from "./workspacePath.ts";
import { at, DIRECTORY_FLAGS, READ_FLAGS, type WorkspaceRoot } from "./workspaceRoot.ts";

/** Runs `work` with the resolved parent, closing it afterwards. */
async function withResolved<T>(
  root: WorkspaceRoot,
  request: { readonly path: string; readonly followLast: boolean },
  work: (directory: FileHandle, name: string | undefined, components: string[]) => Promise<T>,
): Promise<T> {
  const components = parseWorkspacePath(request.path);
  const shownPath = joinPath(components);
  const resolved = await root.resolve(components, { followLast: request.followLast, shownPath });
  try {
    return await work(resolved.directory, resolved.name, components);
  } catch (error) {
    throw fsError(error, shownPath);
  } finally {
    await resolved.directory.close();
  }
}

export async function statEntry(
  root: WorkspaceRoot,
  request: OperationRequest<"stat">,
): Promise<OperationResponse<"stat">> {
  return withResolved(root, { path: request.path, followLast: false }, async (dir, name, parts) => {
    const path = joinPath(parts);
    const linkPath = at(dir, name);
    const stats = name === undefined ? await dir.stat() : await lstat(linkPath);
    return { entry: await describe(stats, { path, name: parts.at(-1) ?? "", linkPath }) };
  });
}

export async function listFolder(
  root: WorkspaceRoot,
  request: OperationRequest<"list">,
): Promise<OperationResponse<"list">> {
  return withResolved(root, { path: request.path, followLast: true }, async (dir, name, parts) => {
    const folder = name === undefined ? dir : await open(at(dir, name), DIRECTORY_FLAGS);
    try {
      if (name !== undefined) await root.assertInside(folder, joinPath(parts));
      const { names } = await readNames(folder);
      const visible = names.filter((entry) => !isTempName(entry)).sort(compareUtf16);
      const entries: FileInfo[] = [];
      for (const entry of visible) {
        const linkPath = at(folder, entry);
        const stats = await ignoreMissing(lstat(linkPath));
        if (stats === undefined) continue;
        const path = joinPath([...parts, entry]);
        entries.push(await describe(stats, { path, name: entry, linkPath }));
      }
      return { entries };
    } finally {
      if (folder !== dir) await folder.close();
    }
  });
}

export async function readFile(
  root: WorkspaceRoot,
  request: OperationRequest<"read">,
): Promise<OperationResponse<"read">> {
  return withResolved(root, { path: request.path, followLast: true }, async (dir, name, parts) => {
    const path = joinPath(parts);
    if (name === undefined) throw new BoxError("wrong_type", `${path || "the root"}: is a folder`);
    const file = await openRegularFile(root, { directory: dir, name, path });
    try {
      const { size } = await file.stat();
      const ranged = request.offset !== undefined || request.length !== undefined;
      const offset = Math.min(request.offset ?? 0, size);
      const length = Math.min(request.length ?? size - offset, size - offset);
      if (!ranged && size > MAX_INLINE_BYTES) {
        throw new BoxError(
          "too_large",
          `${path} is ${size} bytes, over the ${MAX_INLINE_BYTES / 1024 / 1024} MiB limit of a whole-file read: read it in ranges (offset and length) or use the download stream`,
        );
      }
      if (length > MAX_INLINE_BYTES) {
        throw new BoxError(
          "too_large",
          `a ranged read returns at most ${MAX_INLINE_BYTES / 1024 / 1024} MiB: ask for a smaller length or use the download stream`,
        );
      }
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await file.read(buffer, 0, length, offset);
      const bytes = buffer.subarray(0, bytesRead);
      return {
        path,
        content: bytes.toString(request.encoding),
        encoding: request.encoding,
        offset,
        length: bytesRead,
        size,
        eof: offset + bytesRead >= size,
        version: ranged ? undefined : createHash("sha256").update(bytes).digest("hex"),
      };
    } finally {
      await file.close();
    }
  });
}

/** Opens `name` in `directory` for reading: no symlink, no FIFO wait, regular files only. */
export async function openRegularFile(
  root: WorkspaceRoot,
  target: { readonly directory: FileHandle; readonly name: string; readonly path: string },
): Promise<FileHandle> {
  const file = await open(at(target.directory, target.name), READ_FLAGS);
  try {
    const stats = await file.stat();
    if (!stats.isFile()) throw new BoxError("wrong_type", `${target.path}: is not a regular file`);
    await root.assertInside(file, target.path);
    return file;
  } catch (error) {
    await file.close();
    throw error;
  }
}

export async function makeFolder(
  root: WorkspaceRoot,
  request: OperationRequest<"mkdir">,
): Promise<OperationResponse<"mkdir">> {
  const components = parseWorkspacePath(request.path);
  const path = joinPath(components);
  if (components.length === 0) throw new BoxError("already_exists", "the root already exists");
  if (request.parents) {
    // Made whole or not at all: a failure part-way takes back what it made.
    const made = await makeFolders(root, { components, shownPath: path });
    await made.release();
    return { path };
  }
  await withResolved(root, { path, followLast: true }, async (dir, name) => {
    // Resolved to a folder that already exists (possibly through an in-workspace symlink).
    if (name === undefined) throw new BoxError("already_exists", `${path}: already exists`);
    await mkdir(at(dir, name), 0o755);
  });
  return { path };
}

export async function moveEntry(
  root: WorkspaceRoot,
  request: OperationRequest<"move">,
): Promise<OperationResponse<"move">> {
  return withResolved(
    root,
    { path: request.from, followLast: false },
    async (fromDir, fromName, fromParts) =>
      withResolved(
        root,
        { path: request.to, followLast: false },
        async (toDir, toName, toParts) => {
          if (fromName === undefined || toName === undefined) {
            throw new BoxError("invalid_name", "the workspace root cannot be moved or replaced");
          }
          const target = at(toDir, toName);
          if (!request.overwrite && (await ignoreMissing(lstat(target))) !== undefined) {
            throw new BoxError("already_exists", `${joinPath(toParts)}: already exists`);
          }
          try {
            await rename(at(fromDir, fromName), target);
          } catch (error) {
            throw fsError(error, joinPath(fromParts));
          }
          return { from: joinPath(fromParts), to: joinPath(toParts) };
        },
      ),
  );
}

export async function removeEntry(
  root: WorkspaceRoot,
  request: OperationRequest<"remove">,
): Promise<OperationResponse<"remove">> {
  return withResolved(root, { path: request.path, followLast: false }, async (dir, name, parts) => {
    if (name === undefined)
      throw new BoxError("invalid_name", "the workspace root cannot be removed");
    const stats = await lstat(at(dir, name));
    if (!stats.isDirectory()) await unlink(at(dir, name));
    else if (request.recursive) await removeTree(dir, name);
    else await rmdir(at(dir, name));
    return { path: joinPath(parts) };
  });
}
