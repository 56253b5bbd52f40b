import { createGzip, type Gzip } from "node:zlib";

/**
 * An archive blob is boxd's capture tar (its manifest as the last entry), gzip-compressed; a
 * restore sends it to the box as stored, and boxd decompresses it (hydrate's gzip encoding). Level
 * 1: half of a typical workspace is already-compressed or random bytes, where higher levels
 * spend several times the CPU for a few percent; this keeps capture bound by the disk.
 */
export const GZIP_LEVEL = 1;

export function compressor(): Gzip {
  return createGzip({ level: GZIP_LEVEL, chunkSize: 256 * 1024 });
}

/**
 * A blob's key is its content address: the sha256 of its bytes. Rows of the same bytes, in any
 * lease, share it (sharedBlobs.ts says when one may be deleted).
 */
export function blobKey(sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
  return `blobs/sha256/${sha256}`;
}
