import type { DbClientOrTx } from "@berth/db";
import type { ArchiveStore, PendingBlobTag } from "./archiveStore.ts";
import { failTransfer, type FailTransferOutcome } from "./progressRows.ts";

/** One sweep: the pending blobs removed, and what became of each dead capture's progress. */
export interface AbandonedCaptureReport {
  readonly removed: number;
  /** Abandoned blobs kept for the next sweep (the database or the folder failed). */
  readonly deferred: number;
  readonly transfers: readonly (PendingBlobTag & { readonly outcome: FailTransferOutcome })[];
}

/**
 * Clears up after captures whose process died mid-write (web and worker processes capture; any
 * of them may be killed): removes their pending blobs from the archive store, and ends each one's
 * progress in `failed` instead of leaving it frozen at "capturing". A capture counts as dead only
 * when its lock says so, never by its age, so a slow live capture is left alone. The progress
 * is failed before the blob goes, so a database error keeps the blob (and its tag) for the next
 * sweep. Any number of workers may sweep: failing a transfer is a CAS, and each blob goes once.
 */
export class AbandonedCaptureSystem {
  readonly #db: DbClientOrTx;
  readonly #store: ArchiveStore;

  constructor(options: { readonly db: DbClientOrTx; readonly store: ArchiveStore }) {
    this.#db = options.db;
    this.#store = options.store;
  }

  async sweepOnce(): Promise<AbandonedCaptureReport> {
    const transfers: (PendingBlobTag & { outcome: FailTransferOutcome })[] = [];
    const swept = await this.#store.sweepAbandoned(async (tag) => {
      transfers.push({ ...tag, outcome: await failTransfer(this.#db, tag) });
    });
    return { ...swept, transfers };
  }
}
