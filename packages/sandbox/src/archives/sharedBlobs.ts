import type { DbClient, DbClientOrTx } from "@berth/db";
import type { Clock } from "../clock.ts";
import type { ArchiveStore } from "./archiveStore.ts";

/** Advisory-lock class of archive blobs: the lock's second key is a hash of the blob's key. */
const BLOB_LOCK_CLASS = 0x626c6f62; // "blob"

/** A publish that found its blob gone: a concurrent retention deleted it after the commit. */
export class BlobVanishedError extends Error {
  override readonly name = "BlobVanishedError";
  constructor(readonly key: string) {
    super(`the archive blob ${key} was deleted while its capture was being published`);
  }
}

/**
 * Blobs are content-addressed and shared by every archive row of the same bytes, in any lease.
 * Publishing a row and deleting a blob each happen under one transaction-scoped lock on the
 * blob's key: a publish checks, under the lock, that its blob is still stored; a delete checks,
 * under the lock, that no usable row refers to it. Either the row lands first and the blob is
 * kept, or the blob goes first and the publish is refused (its capture writes the blob again):
 * never a row whose blob is gone, so a restore of a kept revision never loses its blob.
 */
export class SharedBlobs {
  readonly #db: DbClientOrTx;
  readonly #store: ArchiveStore;
  readonly #clock: Clock;

  constructor(options: { db: DbClientOrTx; store: ArchiveStore; clock: Clock }) {
    this.#db = options.db;
    this.#store = options.store;
    this.#clock = options.clock;
  }

  /**
   * Runs `publish` in a transaction holding `key`'s lock once the blob is known to be stored
   * (else BlobVanishedError, nothing published). `publish` gets the transaction and the time,
   * read before it opened, and must use no other connection.
   */
  async publishWith<T>(
    key: string,
    publish: (within: { tx: DbClientOrTx; now: Date }) => Promise<T>,
  ): Promise<T> {
    const now = await this.#clock.now();
    return await this.#locked(key, async (tx) => {
      if (!(await this.#store.exists(key))) throw new BlobVanishedError(key);
      return await publish({ tx, now });
    });
  }

  /**
   * Deletes the blob under `key` if no usable row refers to it (rows marked invalid do not: their
   * bytes were found wrong); answers whether it did.
   */
  async removeUnreferenced(key: string): Promise<boolean> {
    return await this.#locked(key, async (tx) => {
      const refs = await tx.workspaceArchive.count({
        where: { storageKey: key, status: { not: "invalid" } },
      });
      if (refs > 0) return false;
      await this.#store.remove(key);
      return true;
    });
  }

  /**
   * Before a capture stores `key`: a blob there that a restore found wrong (a row of it marked
   * invalid) is deleted, so the capture writes good bytes rather than keeping the bad ones.
   */
  async dropKnownBad(key: string): Promise<void> {
    await this.#locked(key, async (tx) => {
      const bad = await tx.workspaceArchive.count({
        where: { storageKey: key, status: "invalid" },
      });
      if (bad > 0) await this.#store.remove(key);
    });
  }

  async #locked<T>(key: string, body: (tx: DbClientOrTx) => Promise<T>): Promise<T> {
    const locked = async (tx: DbClientOrTx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${BLOB_LOCK_CLASS}::int, hashtext(${key}))`;
      return await body(tx);
    };
    // Given a transaction already (a caller's), the lock lasts as long as it does.
    if (!isClient(this.#db)) return await locked(this.#db);
    // The body waits on the store (a HEAD or a DELETE, with the SDK's retries).
    return await this.#db.$transaction(locked, { maxWait: 30_000, timeout: 120_000 });
  }
}

function isClient(db: DbClientOrTx): db is DbClient {
  return "$transaction" in db;
}
