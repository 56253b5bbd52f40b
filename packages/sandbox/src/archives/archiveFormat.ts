import { randomUUID } from "node:crypto";
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

/** One capture's blob key: unique per capture, so a key is never shared by two archive rows. */
export function archiveKey(input: {
  readonly workspaceId: string;
  readonly leaseId: string;
  readonly revision: string;
}): string {
  const capture = randomUUID().slice(0, 8);
  return `workspaces/${input.workspaceId}/leases/${input.leaseId}/${input.revision}-${capture}.tar.gz`;
}
