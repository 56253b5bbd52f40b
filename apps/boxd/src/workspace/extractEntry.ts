import { BoxError, drainEntry, type ManifestEntry, type PaxHeaders } from "@berth/box-protocol";
import type { ExtractionWriter } from "./extractionWriter.ts";

export interface EntryToExtract {
  readonly writer: ExtractionWriter;
  /** Its manifest path, and where the writer puts it (the same, but for `.` and empty parts). */
  readonly path: string;
  readonly at: string;
  readonly header: PaxHeaders;
  readonly body: AsyncIterable<Buffer>;
  /** The entries extracted so far (its parents already among them). */
  readonly entries: ReadonlyMap<string, ManifestEntry>;
}

/**
 * Hands one archive entry to the writer and returns its manifest line. A file's sha256 is left
 * empty here: the writer hashes the bytes it writes, and answers every file's hash when it
 * finishes (see hydrate.ts). Hardlinks, devices and FIFOs are refused: they could alias or
 * block on what lies outside the workspace.
 */
export async function extractEntry(entry: EntryToExtract): Promise<ManifestEntry> {
  const { path, at, header, writer } = entry;
  const mode = (header.mode ?? 0o644) & 0o7777;
  switch (header.type) {
    case "file":
    case undefined:
    case null:
      return writeFile(entry, mode);
    case "directory":
      await drainEntry(entry.body);
      // Created already for an earlier entry below it: the explicit entry only sets its mode.
      if (entry.entries.get(path)?.type !== "dir") await writer.mkdir(at, 0o700);
      return { path, type: "dir", mode };
    case "symlink":
      await drainEntry(entry.body);
      await writer.symlink(at, header.linkname ?? "");
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

async function writeFile(entry: EntryToExtract, mode: number): Promise<ManifestEntry> {
  const { writer, path } = entry;
  await writer.openFile(entry.at, mode);
  let size = 0;
  for await (const chunk of entry.body) {
    size += chunk.byteLength;
    await writer.write(chunk);
  }
  await writer.closeFile(mode, entry.header.mtime);
  return { path, type: "file", mode, size, sha256: "" };
}

function invalid(message: string): BoxError {
  return new BoxError("invalid_archive", message);
}
