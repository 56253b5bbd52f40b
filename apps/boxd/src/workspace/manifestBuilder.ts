import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import {
  createManifest,
  manifestRevision,
  type ManifestEntry,
  type ManifestResponse,
} from "@berth/box-protocol";
import { openRegularFile } from "../fs/fileOps.ts";
import { walkTree, type WalkEntry } from "../fs/walk.ts";
import type { WorkspaceRoot } from "../fs/workspaceRoot.ts";

/** Reads files in chunks of this size: memory stays bounded whatever the file. */
export const CHUNK_BYTES = 256 * 1024;

/** The manifest line of a folder or symlink; files need their bytes (see fileEntry). */
export function entryWithoutContent(entry: WalkEntry): ManifestEntry | undefined {
  if (entry.stats.isDirectory()) {
    return { path: entry.path, type: "dir", mode: entry.stats.mode & 0o7777 };
  }
  if (entry.stats.isSymbolicLink()) {
    return { path: entry.path, type: "symlink", mode: 0o777, target: entry.target ?? "" };
  }
  // Sockets, FIFOs and devices are not workspace content.
  return undefined;
}

/**
 * Reads exactly `size` bytes of `file` in chunks, handing each to `sink` and hashing the same
 * bytes. A file that shrank meanwhile fails the read: the bytes described must be the bytes
 * handed on.
 */
export async function readExactly(
  file: FileHandle,
  size: number,
  sink: (chunk: Buffer) => Promise<void>,
): Promise<string> {
  const hash = createHash("sha256");
  let position = 0;
  while (position < size) {
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - position));
    const { bytesRead } = await file.read(buffer, 0, buffer.byteLength, position);
    if (bytesRead === 0) throw new Error("the file shrank while it was read; try again");
    const chunk = buffer.subarray(0, bytesRead);
    hash.update(chunk);
    await sink(chunk);
    position += bytesRead;
  }
  return hash.digest("hex");
}

/** The workspace's manifest and revision, every file hashed as a stream. */
export async function buildManifest(root: WorkspaceRoot): Promise<ManifestResponse> {
  const top = await root.openRoot();
  const entries: ManifestEntry[] = [];
  try {
    for await (const entry of walkTree(top)) {
      if (!entry.stats.isFile()) {
        const line = entryWithoutContent(entry);
        if (line !== undefined) entries.push(line);
        continue;
      }
      const file = await openRegularFile(root, {
        directory: entry.parent,
        name: entry.name,
        path: entry.path,
      });
      try {
        const { size, mode } = await file.stat();
        const sha256 = await readExactly(file, size, () => Promise.resolve());
        entries.push({ path: entry.path, type: "file", mode: mode & 0o7777, size, sha256 });
      } finally {
        await file.close();
      }
    }
  } finally {
    await top.close();
  }
  const manifest = createManifest(entries);
  return { revision: manifestRevision(manifest), manifest };
}
