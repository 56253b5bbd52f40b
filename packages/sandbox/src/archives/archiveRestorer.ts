import { randomUUID } from "node:crypto";
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
    // Read here, chunk by chunk, so a failure of the store's own read (a dropped connection it
    // could not resume) is told apart from the teardown a failing box causes: that one is thrown
    // in where a chunk was handed on (an abort, a premature close), never where one is read.
    let storeFailure: unknown;
    async function* counted(): AsyncGenerator<Buffer> {
      const chunks = (blob.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
      for (;;) {
        let next: IteratorResult<Buffer>;
        try {
          next = await chunks.next();
        } catch (error) {
          storeFailure = error;
          throw error;
        }
        if (next.done === true) return;
        bytesDone += next.value.byteLength;
        progress.report(event());
        yield next.value;
      }
    }
    try {
      // Sent as stored: the box decompresses it beside its extraction (no inflating here, and
      // the wire carries the compressed size).
      const result = await input.client.hydrate({ body: counted(), encoding: "gzip" });
      progress.finish(event());
      return result.revision;
    } catch (error) {
      progress.finish(event("failed"));
      throw hydrateFailure({ error, storeFailure, revision: row.revision });
    } finally {
      // However the send ended (a refusal may come before the body was read at all), the
      // store's connection or file is closed.
      blob.body.destroy();
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

/**
 * What a failed hydrate means: the store's read failing is unverified (may retry), bytes the box
 * refuses are corrupt, and a lost box or connection may retry.
 */
function hydrateFailure(input: {
  error: unknown;
  storeFailure: unknown;
  revision: string;
}): ArchiveIntegrityError {
  const { error, storeFailure, revision } = input;
  // The store is named, as the check names it, whatever the box then said of its cut body. The
  // row stays as the check left it: its bytes were just proven whole.
  if (storeFailure !== undefined) {
    return new ArchiveIntegrityError(
      "archive_unverified",
      `the archive store could not read revision ${revision} to the end: ${describe(storeFailure)}`,
      { cause: storeFailure },
    );
  }
  // Only the box judges the bytes (it inflates and extracts them); nothing here reads them.
  const badBytes =
    error instanceof BoxError &&
    (error.code === "invalid_archive" || error.code === "outside_workspace");
  if (badBytes) {
    return new ArchiveIntegrityError(
      "archive_corrupt",
      `revision ${revision} is not a valid workspace archive: ${describe(error)}`,
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
