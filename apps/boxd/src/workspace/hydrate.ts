import { execFile } from "node:child_process";
import { closeSync, fchmodSync, openSync } from "node:fs";
import { mkdir, open, rename, rmdir } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import { createGunzip, type Gunzip } from "node:zlib";
import {
  BoxError,
  createManifest,
  isManifestEntry,
  manifestRevision,
  normalizeTarPath,
  hashEmbeddedManifest,
  type HydrateResult,
  type ManifestEntry,
  type PaxHeaders,
} from "@berth/box-protocol";
import { extract } from "tar-stream";
import { readNames } from "../fs/fileInfo.ts";
import { errnoOf, fsError } from "../fs/fsErrors.ts";
import { KeyedLock } from "../fs/keyedLock.ts";
import { removeTree } from "../fs/removeTree.ts";
import { isTempName, newTempName } from "../fs/tempNames.ts";
import { at, atFd, DIRECTORY_FLAGS, type WorkspaceRoot } from "../fs/workspaceRoot.ts";
import { feedInBatches, type BatchedFeed } from "./batchedFeed.ts";
import { extractEntry } from "./extractEntry.ts";
import { extractionWriter } from "./extractionWriter.ts";
import { missingParents } from "./missingParents.ts";

/**
 * Extracts a tar into an empty workspace. Everything lands first in a hidden staging folder
 * inside the root and moves up only once the whole archive extracted (and matched its
 * embedded manifest, when it has one), so a refused or broken archive leaves the workspace
 * empty. Refused: absolute names and `..` (outside_workspace), any entry whose path runs
 * through a symlink — including one the same archive just created (outside_workspace), and
 * hardlinks, devices, FIFOs and duplicate names (invalid_archive). Nothing is ever opened
 * through a symlink: every folder is entered with O_NOFOLLOW from its held parent.
 */
export async function hydrateWorkspace(
  root: WorkspaceRoot,
  source: Readable,
  options: HydrateOptions = {},
): Promise<HydrateResult> {
  return oneAtATime.run("hydrate", () => hydrateOnce(root, source, options));
}

export interface HydrateOptions {
  readonly gzip?: boolean;
  /**
   * Told each file's size (from its tar header) before its bytes are written: a throw refuses
   * the archive (the disk limit: fs/diskWatch.ts), leaving the workspace empty.
   */
  readonly reserve?: (bytes: number) => void;
}

const run = promisify(execFile);

/** Two hydrates at once would both find the root empty; they take turns instead. */
const oneAtATime = new KeyedLock();

async function hydrateOnce(
  root: WorkspaceRoot,
  source: Readable,
  options: HydrateOptions,
): Promise<HydrateResult> {
  const top = await root.openRoot();
  const stagingName = newTempName("hydrate");
  let staging: FileHandle | undefined;
  try {
    await assertEmpty(top);
    await mkdir(at(top, stagingName), 0o700);
    staging = await open(at(top, stagingName), DIRECTORY_FLAGS);
    const extracted = await extractInto(staging, source, options);
    await ownTree(root, stagingName);
    await assertEmpty(top);
    const { names } = await readNames(staging);
    for (const name of names) await rename(at(staging, name), at(top, name));
    await staging.close();
    staging = undefined;
    await rmdir(at(top, stagingName));
    await top.sync();
    return extracted;
  } catch (error) {
    // Read and drop the rest of the body, so the client gets this error as the reply.
    source.unpipe();
    source.resume();
    await staging?.close();
    await removeTree(top, stagingName).catch(() => undefined);
    throw asHydrateError(error);
  } finally {
    await top.close();
  }
}

/**
 * Gives the extracted tree to the box's user in one `chown -hR` (never following a symlink):
 * the staging folder is boxd's own (0700), so nothing in it changes meanwhile.
 */
async function ownTree(root: WorkspaceRoot, stagingName: string): Promise<void> {
  if (root.owner === undefined) return;
  const { uid, gid } = root.owner;
  await run("chown", ["-hR", `${String(uid)}:${String(gid)}`, join(root.realPath, stagingName)]);
}

async function assertEmpty(top: FileHandle): Promise<void> {
  const { names, undecodable } = await readNames(top);
  if (undecodable > 0 || names.some((name) => !isTempName(name))) {
    throw new BoxError("not_empty", "hydrate needs an empty workspace; this one has entries");
  }
}

/**
 * `gzip`: the source is the tar compressed, decompressed here on zlib's threads, beside the
 * extraction on this one; a stream that is not gzip, or fails its check, is an invalid archive.
 */
async function extractInto(
  staging: FileHandle,
  source: Readable,
  options: HydrateOptions,
): Promise<HydrateResult> {
  const gzip = options.gzip === true;
  const parser = extract();
  source.on("error", (error) => parser.destroy(error));
  let feed: BatchedFeed | undefined;
  let gunzip: Gunzip | undefined;
  if (gzip) {
    gunzip = createGunzip({ chunkSize: 256 * 1024 });
    gunzip.on("error", (error) => {
      parser.destroy(invalid(`not a readable gzip stream: ${error.message}`));
    });
    feed = feedInBatches(source, gunzip, 1024 * 1024);
    // A failed feed has already failed the parser, through the source's error or gunzip's.
    feed.done.catch(() => undefined);
    gunzip.pipe(parser);
  } else {
    source.pipe(parser);
  }
  const entries = new Map<string, ManifestEntry>();
  // File lines in the order they were written, for the hashes the writer answers at the end.
  const files: Extract<ManifestEntry, { type: "file" }>[] = [];
  const writer = extractionWriter(staging.fd);
  let embeddedRevision: string | undefined;
  try {
    for await (const entry of parser) {
      const header = entry.header as PaxHeaders;
      if (embeddedRevision !== undefined) throw invalid("an entry follows the manifest entry");
      if (isManifestEntry(header)) {
        embeddedRevision = await hashEmbeddedManifest(entry);
        continue;
      }
      const path = normalizeTarPath(header.name);
      const components = archivePath(header.name, path);
      const existing = entries.get(path);
      if (existing !== undefined && !(existing.type === "dir" && header.type === "directory")) {
        throw invalid(`${path}: appears twice in the archive`);
      }
      options.reserve?.(header.size ?? 0);
      for (const folder of missingParents(components, entries)) await writer.mkdir(folder, 0o755);
      const at = components.join("/");
      const line = await extractEntry({ writer, path, at, header, body: entry, entries });
      entries.set(path, line);
      if (line.type === "file") files.push(line);
    }
    const digests = await writer.finish();
    if (digests.length !== files.length) {
      throw new Error(
        `the writer hashed ${String(digests.length)} files of ${String(files.length)}`,
      );
    }
    files.forEach((file, index) => (file.sha256 = digests[index] ?? ""));
  } catch (error) {
    // The source stays readable for the caller to drain, and no longer feeds gunzip, whose
    // native stream is released now rather than when it is collected.
    feed?.stop();
    gunzip?.destroy();
    // Nothing may still write into the staging folder once the caller removes it.
    await writer.abort();
    throw error;
  }
  applyFolderModes(staging.fd, entries);
  const manifest = createManifest([...entries.values()]);
  const revision = manifestRevision(manifest);
  // Captures embed their manifest as canonical JSON: its hash is the revision it describes.
  if (embeddedRevision !== undefined && embeddedRevision !== revision) {
    throw invalid("the extracted tree does not match the archive's own manifest");
  }
  return { revision, entries: entries.size, verified: embeddedRevision !== undefined };
}

/** Checks an entry name: relative, no `..`, no NUL, not one of boxd's reserved names. */
function archivePath(raw: string, path: string): string[] {
  if (raw.startsWith("/")) throw escapes(raw, "is an absolute path");
  const components = path.split("/").filter((part) => part !== "" && part !== ".");
  if (components.length === 0) throw invalid(`an entry has an empty name (${JSON.stringify(raw)})`);
  if (components.includes("..")) throw escapes(raw, "climbs out with ..");
  if (path.includes("\0")) throw invalid(`${JSON.stringify(raw)}: NUL in a name`);
  if (components.some(isTempName))
    throw invalid(`${path}: names starting .berth-tmp- are reserved`);
  return components;
}

/** Folder modes last, deepest first, so a read-only folder does not block its own contents. */
function applyFolderModes(stagingFd: number, entries: Map<string, ManifestEntry>): void {
  const folders = [...entries.values()].filter((entry) => entry.type === "dir");
  folders.sort((left, right) => right.path.split("/").length - left.path.split("/").length);
  for (const folder of folders) {
    // Component by component with O_NOFOLLOW: nothing is ever opened through a link.
    let fd = openSync(atFd(stagingFd, "."), DIRECTORY_FLAGS);
    try {
      for (const name of folder.path.split("/")) {
        const next = openSync(atFd(fd, name), DIRECTORY_FLAGS);
        closeSync(fd);
        fd = next;
      }
      fchmodSync(fd, folder.mode);
    } finally {
      closeSync(fd);
    }
  }
}

/** Filesystem failures keep their meaning; anything else the parser threw means a bad archive. */
function asHydrateError(error: unknown): BoxError {
  if (error instanceof BoxError) return error;
  if (errnoOf(error) !== undefined) return fsError(error, "");
  const reason = error instanceof Error ? error.message : String(error);
  return invalid(`not a readable tar archive: ${reason}`);
}

function invalid(message: string): BoxError {
  return new BoxError("invalid_archive", message);
}

function escapes(path: string, why: string): BoxError {
  return new BoxError("outside_workspace", `${path}: ${why}; refused`);
}
