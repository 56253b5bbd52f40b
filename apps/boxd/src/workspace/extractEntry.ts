import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, symlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { BoxError, drainEntry, type ManifestEntry, type PaxHeaders } from "@berth/box-protocol";
import { errnoOf } from "../fs/fsErrors.ts";
import { writeAll } from "../fs/writeAll.ts";
import { at } from "../fs/workspaceRoot.ts";

const CREATE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

export interface EntryToExtract {
  readonly parent: FileHandle;
  readonly name: string;
  readonly path: string;
  readonly header: PaxHeaders;
  readonly body: AsyncIterable<Buffer>;
}

/**
 * Creates one archive entry inside its (held, already checked) parent folder and returns its
 * manifest line, hashed from the bytes written. Files are created O_EXCL|O_NOFOLLOW: never
 * over an existing entry, never through a link.
 */
export async function extractEntry(entry: EntryToExtract): Promise<ManifestEntry> {
  const { parent, name, path, header } = entry;
  const mode = (header.mode ?? 0o644) & 0o7777;
  const target = at(parent, name);
  switch (header.type) {
    case "file":
    case undefined:
    case null:
      return writeFile({ target, path, mode, header, body: entry.body });
    case "directory":
      await drainEntry(entry.body);
      try {
        await mkdir(target, 0o700);
      } catch (error) {
        // Created implicitly for an earlier entry: the explicit entry only sets its mode.
        if (errnoOf(error) !== "EEXIST") throw error;
      }
      return { path, type: "dir", mode };
    case "symlink":
      await drainEntry(entry.body);
      await symlink(header.linkname ?? "", target);
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
  let file: FileHandle;
  try {
    file = await open(options.target, CREATE_FLAGS, 0o600);
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
      await writeAll(file, chunk);
    }
    await file.chmod(options.mode);
    if (options.header.mtime !== undefined) {
      await file.utimes(options.header.mtime, options.header.mtime);
    }
    return {
      path: options.path,
      type: "file",
      mode: options.mode,
      size,
      sha256: hash.digest("hex"),
    };
  } finally {
    await file.close();
  }
}

function invalid(message: string): BoxError {
  return new BoxError("invalid_archive", message);
}
