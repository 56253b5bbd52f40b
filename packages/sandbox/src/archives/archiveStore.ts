import type { Readable, Writable } from "node:stream";

/** What a finished blob holds: its size and the sha256 of exactly the bytes stored. */
export interface BlobDigest {
  readonly sizeBytes: number;
  readonly sha256: string;
}

/**
 * A blob being written. Write the archive into `sink` and end it; `digest` settles once the
 * bytes are durable (written and synced) under a temporary name. Then `commit` gives it its key
 * — never replacing a blob already there — or `discard` drops it. Either may be called once.
 */
export interface PendingBlob {
  readonly sink: Writable;
  readonly digest: Promise<BlobDigest>;
  commit(key: string): Promise<void>;
  discard(): Promise<void>;
}

/**
 * Whose capture a pending blob is, kept with it while it is written: a sweep that finds the
 * writer dead tells which lease's transfer died with it (its progress row ends `failed`).
 */
export interface PendingBlobTag {
  readonly leaseId: string;
  readonly transferId: string;
}

/** What one sweep of abandoned pending blobs did. */
export interface AbandonedSweep {
  /** Pending blobs removed: their writers had died. */
  readonly removed: number;
  /** Abandoned blobs left for the next sweep: telling of them (or removing them) failed. */
  readonly deferred: number;
}

/**
 * Whether a store answers now, and where it is: a URL naming no credentials (`file:///…`,
 * `s3://bucket/prefix`, with the endpoint when one is set). `problem` says what failed and what
 * to check; captures and restores fail the same way until it is mended.
 */
export type ArchiveStoreHealth =
  | { readonly reachable: true; readonly location: string; readonly endpoint?: string }
  | {
      readonly reachable: false;
      readonly location: string;
      readonly endpoint?: string;
      readonly problem: string;
    };

/** A store's health with its kind: what `/status` tells of it. */
export type ArchiveStoreStatus = ArchiveStoreHealth & { readonly kind: ArchiveStore["kind"] };

export const archiveStoreErrorCodes = ["not_found", "exists", "invalid_key", "io"] as const;
export type ArchiveStoreErrorCode = (typeof archiveStoreErrorCodes)[number];

export class ArchiveStoreError extends Error {
  override readonly name = "ArchiveStoreError";
  constructor(
    readonly code: ArchiveStoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The ArchiveStore port: where archive blobs live. The filesystem store is the default; an
 * S3-compatible store fits the same calls (a multipart upload is a pending blob; commit is a
 * conditional put that refuses an existing key; the sweep aborts uploads whose writer is gone).
 */
export interface ArchiveStore {
  readonly kind: "filesystem" | "s3";
  /**
   * Starts writing a new blob, locked as this process's until it is committed or discarded; the
   * tag names the capture it belongs to.
   */
  begin(tag?: PendingBlobTag): Promise<PendingBlob>;
  /**
   * Removes every pending blob whose writer has died — known dead by its lock, never judged by
   * age: a slow live capture keeps its blob — after telling `onAbandoned` the blob's tag (when it
   * has one). When that call fails the blob stays, tag and all, for the next sweep; it may be
   * told twice when sweepers race, so it must be idempotent.
   */
  sweepAbandoned(onAbandoned?: (tag: PendingBlobTag) => Promise<void>): Promise<AbandonedSweep>;
  /** The size and sha256 of the stored bytes, read end to end; `not_found` when missing. */
  digest(key: string, onBytes?: (bytesDone: number) => void): Promise<BlobDigest>;
  /** Whether a blob is stored under `key`, without reading it. */
  exists(key: string): Promise<boolean>;
  /** Reads a blob; `not_found` when there is none under `key`. */
  open(key: string): Promise<{ readonly sizeBytes: number; readonly body: Readable }>;
  /** Deletes a blob; a missing one counts as deleted. */
  remove(key: string): Promise<void>;
  /**
   * Probes the storage as a capture would reach it, answering within about `timeoutMs`
   * (default 3 s); never throws — an unreachable store is an answer.
   */
  health(options?: { readonly timeoutMs?: number }): Promise<ArchiveStoreHealth>;
}

/** Keys are `/`-separated names of letters, digits, `.`, `_` and `-`, each starting with a letter or digit. */
export function checkArchiveKey(key: string): string[] {
  const parts = key.split("/");
  const valid =
    key.length <= 512 && parts.every((part) => /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(part));
  if (!valid)
    throw new ArchiveStoreError("invalid_key", `not an archive key: ${JSON.stringify(key)}`);
  return parts;
}
