import { createHash } from "node:crypto";
import type { Writable } from "node:stream";
import { extract, type Headers } from "tar-stream";
import { BoxError } from "./boxError.ts";
import {
  createManifest,
  MANIFEST_PAX_KEY,
  manifestRevision,
  type Manifest,
  type ManifestEntry,
} from "./manifest.ts";

/** tar-stream's headers carry the decoded pax records; its typings leave them out. */
export type PaxHeaders = Headers & { pax?: Record<string, string> | null };

/** The embedded manifest is JSON about the tree: bounded so a hostile archive cannot balloon it. */
const MAX_MANIFEST_BYTES = 256 * 1024 * 1024;

export interface TarManifest {
  /** Computed from the archive's own entries and bytes. */
  readonly computed: Manifest;
  readonly revision: string;
  /**
   * The sha256 of the manifest entry's bytes, if the archive has one. Captures write the
   * manifest as canonical JSON, so it equals `revision` exactly when the archive's entries are
   * the ones its manifest describes — checked without parsing the manifest at all.
   */
  readonly embeddedRevision: string | undefined;
}

/** True for the entry that carries a capture's manifest. */
export function isManifestEntry(header: PaxHeaders): boolean {
  return header.pax?.[MANIFEST_PAX_KEY] === "1";
}

/** An archive path as a manifest path: no leading `./`, no trailing `/`. */
export function normalizeTarPath(name: string): string {
  let path = name;
  while (path.startsWith("./")) path = path.slice(2);
  while (path.endsWith("/")) path = path.slice(0, -1);
  return path;
}

/**
 * Reads a tar written into the returned stream and describes it: every entry's manifest line,
 * hashed from the archived bytes themselves, plus the manifest the archive embeds. The
 * client uses it to verify a capture as it downloads.
 */
export function tarManifestReader(): { sink: Writable; result: Promise<TarManifest> } {
  const parser = extract();
  const result = (async () => {
    const entries: ManifestEntry[] = [];
    let embeddedRevision: string | undefined;
    for await (const entry of parser) {
      const header = entry.header as PaxHeaders;
      if (embeddedRevision !== undefined) throw invalid("an entry follows the manifest entry");
      if (isManifestEntry(header)) {
        embeddedRevision = await hashEmbeddedManifest(entry);
        continue;
      }
      entries.push(await describeEntry(header, entry));
    }
    const computed = createManifest(entries);
    return { computed, revision: manifestRevision(computed), embeddedRevision };
  })();
  // The caller awaits `result`; this only keeps an early failure from going unhandled.
  result.catch(() => undefined);
  return { sink: parser, result };
}

async function describeEntry(
  header: PaxHeaders,
  body: AsyncIterable<Buffer>,
): Promise<ManifestEntry> {
  const path = normalizeTarPath(header.name);
  const mode = (header.mode ?? 0) & 0o7777;
  switch (header.type) {
    case "file":
    case undefined:
    case null: {
      const hash = createHash("sha256");
      let size = 0;
      for await (const chunk of body) {
        hash.update(chunk);
        size += chunk.byteLength;
      }
      return { path, type: "file", mode, size, sha256: hash.digest("hex") };
    }
    case "directory":
      await drainEntry(body);
      return { path, type: "dir", mode };
    case "symlink":
      await drainEntry(body);
      return { path, type: "symlink", mode: 0o777, target: header.linkname ?? "" };
    case "link":
    case "character-device":
    case "block-device":
    case "fifo":
    case "contiguous-file":
    case "pax-header":
    case "pax-global-header":
    case "gnu-long-link-path":
    case "gnu-long-path":
      throw invalid(`${path}: ${header.type} entries are not part of a workspace archive`);
  }
}

/** The sha256 of an embedded manifest entry's bytes (bounded: a hostile archive cannot balloon it). */
export async function hashEmbeddedManifest(body: AsyncIterable<Buffer>): Promise<string> {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > MAX_MANIFEST_BYTES) throw invalid("the embedded manifest is too large");
    hash.update(chunk);
  }
  return hash.digest("hex");
}

/** Reads an entry's body to its end, keeping nothing (the parser moves on only then). */
export async function drainEntry(body: AsyncIterable<Buffer>): Promise<void> {
  const iterator = body[Symbol.asyncIterator]();
  for (let step = await iterator.next(); step.done !== true; step = await iterator.next()) {
    // discarded
  }
}

function invalid(message: string): BoxError {
  return new BoxError("invalid_archive", message);
}
