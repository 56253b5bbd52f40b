import { randomUUID } from "node:crypto";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { BoxError, type BoxClient } from "@berth/box-protocol";
import type { DbClientOrTx } from "@berth/db";
import { z } from "zod";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import { ArchiveIntegrityError } from "./archiveErrors.ts";
import { findArchive, markArchive, type ArchiveRow } from "./archiveRows.ts";
import { ArchiveStoreError, type ArchiveStore } from "./archiveStore.ts";
import { throttled, type ProgressListener } from "./progress.ts";

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const usableRowSchema = z.object({
  revision: hex64,
  sha256: hex64,
  storageKey: z.string().min(1),
  sizeBytes: z.number().int().positive(),
});

/**
 * Restores a lease's selected archive: `check` proves the blob is whole (its size and sha256
 * match the row) before any box exists; `hydrate` streams it into a new box's empty workspace.
 * Every failure is an ArchiveIntegrityError whose code says what broke and whether to retry;
 * a blob found missing or corrupt is marked on its row, so nothing selects it silently again.
 */
export class ArchiveRestorer {
  readonly #db: DbClientOrTx;
  readonly #store: ArchiveStore;
  readonly #onProgress: ProgressListener | undefined;

  constructor(options: {
    readonly db: DbClientOrTx;
    readonly store: ArchiveStore;
    readonly onProgress?: ProgressListener;
  }) {
    this.#db = options.db;
    this.#store = options.store;
    this.#onProgress = options.onProgress;
  }

  async check(lease: LeaseSnapshot): Promise<ArchiveRow> {
    const selected = lease.selectedRevision;
    if (selected === null) {
      throw new ArchiveIntegrityError("archive_metadata_invalid", "the lease selects no revision");
    }
    const row = await findArchive(this.#db, { leaseId: lease.id, revision: selected });
    if (row === null || !usableRowSchema.safeParse(row).success) {
      throw new ArchiveIntegrityError(
        "archive_metadata_invalid",
        `no usable archive row describes the selected revision ${selected}`,
      );
    }
    if (row.status === "invalid") {
      throw new ArchiveIntegrityError("archive_corrupt", `revision ${selected} is marked invalid`);
    }
    const progress = throttled(this.#onProgress);
    const transferId = randomUUID();
    let checked = 0;
    const event = (phase: "checking" | "failed") => ({
      operation: "restore" as const,
      leaseId: lease.id,
      transferId,
      phase,
      bytesDone: checked,
      bytesTotal: row.sizeBytes,
    });
    let digest;
    try {
      digest = await this.#store.digest(row.storageKey, (bytes) => {
        checked = bytes;
        progress.report(event("checking"));
      });
    } catch (error) {
      progress.finish(event("failed"));
      throw await this.#storeFailure(row, error);
    }
    checked = digest.sizeBytes;
    if (digest.sizeBytes !== row.sizeBytes || digest.sha256 !== row.sha256) {
      progress.finish(event("failed"));
      await markArchive(this.#db, { ...row, status: "invalid" });
      throw new ArchiveIntegrityError(
        "archive_corrupt",
        `the stored blob of revision ${row.revision} does not match its recorded sha256 and size`,
      );
    }
    progress.finish(event("checking"));
    if (row.status === "unverified") await markArchive(this.#db, { ...row, status: "available" });
    return row;
  }

  /** Streams a checked archive into the box; answers boxd's revision of what it extracted. */
  async hydrate(input: {
    readonly client: BoxClient;
    readonly row: ArchiveRow;
    readonly leaseId: string;
  }): Promise<string> {
    const { row } = input;
    const blob = await this.#openBlob(row);
    const progress = throttled(this.#onProgress);
    const transferId = randomUUID();
    let bytesDone = 0;
    const event = (phase: "hydrating" | "failed" = "hydrating") => ({
      operation: "restore" as const,
      leaseId: input.leaseId,
      transferId,
      phase,
      bytesDone,
      bytesTotal: row.sizeBytes,
    });
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytesDone += chunk.byteLength;
        progress.report(event());
        callback(null, chunk);
      },
    });
    // Sent as stored: the box decompresses it beside its extraction (no inflating here, and the
    // wire carries the compressed size).
    let streamFailure: unknown;
    const feeding = pipeline(blob.body, counter).catch((error: unknown) => {
      streamFailure = error;
    });
    try {
      const result = await input.client.hydrate({ body: counter, encoding: "gzip" });
      await feeding;
      progress.finish(event());
      return result.revision;
    } catch (error) {
      counter.destroy();
      await feeding;
      progress.finish(event("failed"));
      throw hydrateFailure({ error, streamFailure, revision: row.revision });
    }
  }

  async #openBlob(row: ArchiveRow) {
    try {
      return await this.#store.open(row.storageKey);
    } catch (error) {
      throw await this.#storeFailure(row, error);
    }
  }

  /** A missing blob is marked invalid for good; any other store failure may pass: unverified. */
  async #storeFailure(row: ArchiveRow, error: unknown): Promise<ArchiveIntegrityError> {
    if (error instanceof ArchiveStoreError && error.code === "not_found") {
      await markArchive(this.#db, { ...row, status: "invalid" });
      return new ArchiveIntegrityError(
        "archive_missing",
        `the blob of revision ${row.revision} is not in the archive store`,
      );
    }
    await markArchive(this.#db, { ...row, status: "unverified" });
    return new ArchiveIntegrityError(
      "archive_unverified",
      `the archive store could not read revision ${row.revision}: ${describe(error)}`,
      { cause: error },
    );
  }
}

/** What a failed hydrate means: bad bytes are corrupt; a lost box or connection may retry. */
function hydrateFailure(input: {
  error: unknown;
  streamFailure: unknown;
  revision: string;
}): ArchiveIntegrityError {
  const { error, streamFailure, revision } = input;
  const badBytes =
    (streamFailure !== undefined && !(streamFailure instanceof ArchiveStoreError)) ||
    (error instanceof BoxError &&
      (error.code === "invalid_archive" || error.code === "outside_workspace"));
  if (badBytes) {
    return new ArchiveIntegrityError(
      "archive_corrupt",
      `revision ${revision} is not a valid workspace archive: ${describe(streamFailure ?? error)}`,
      { cause: error },
    );
  }
  return new ArchiveIntegrityError(
    "archive_hydration_failed",
    `the box did not take revision ${revision}: ${describe(error)}`,
    { cause: error },
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
