import { createHash, randomUUID } from "node:crypto";
import { constants, createReadStream } from "node:fs";
import {
  access,
  link,
  mkdir,
  open,
  readdir,
  stat,
  unlink,
  type FileHandle,
} from "node:fs/promises";
import { dirname, join } from "node:path";
import { Writable, type Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import type { Clock } from "../clock.ts";
import {
  ArchiveStoreError,
  checkArchiveKey,
  type AbandonedSweep,
  type ArchiveStore,
  type ArchiveStoreHealth,
  type BlobDigest,
  type PendingBlob,
  type PendingBlobTag,
} from "./archiveStore.ts";
import {
  DEFAULT_FOREIGN_QUIET_MS,
  IncomingSweeper,
  lockPendingBlob,
  partName,
  pendingIds,
} from "./incomingBlobs.ts";

const TEMP_FOLDER = ".incoming";
const READ_CHUNK = 256 * 1024;

const wallClock: Clock = { now: () => Promise.resolve(new Date()) };

export interface FilesystemArchiveStoreOptions {
  readonly root: string;
  /**
   * How long a pending blob's lock held from another host (replicas sharing the folder) may go
   * untouched before its writer counts as dead; writers touch theirs every 10 s. Default 2 min.
   */
  readonly foreignQuietMs?: number;
  /** Measures that wait (tests: a ManualClock). */
  readonly clock?: Clock;
}

/**
 * Archive blobs as files under one folder (by default `<data dir>/archives`). A blob is written
 * to a temporary name in `.incoming`, under a lock naming its writer (incomingBlobs.ts), and
 * synced; commit hard-links it to its key — which fails when the key exists, so a blob is never
 * overwritten — syncs the folder, and drops the temporary name and then the lock.
 */
export class FilesystemArchiveStore implements ArchiveStore {
  readonly kind = "filesystem" as const;
  readonly #root: string;
  readonly #sweeper: IncomingSweeper;

  constructor(options: FilesystemArchiveStoreOptions) {
    this.#root = options.root;
    this.#sweeper = new IncomingSweeper({
      folder: join(this.#root, TEMP_FOLDER),
      foreignQuietMs: options.foreignQuietMs ?? DEFAULT_FOREIGN_QUIET_MS,
      clock: options.clock ?? wallClock,
    });
  }

  async begin(tag?: PendingBlobTag): Promise<PendingBlob> {
    const folder = join(this.#root, TEMP_FOLDER);
    await mkdir(folder, { recursive: true });
    const id = randomUUID();
    const tempPath = join(folder, partName(id));
    // Locked before the part exists and released after it is gone: a sweep never meets a live
    // writer's part without its lock.
    const lock = await lockPendingBlob(folder, { id, tag });
    let handle: FileHandle;
    try {
      handle = await open(tempPath, "wx", 0o600);
    } catch (error) {
      await lock.release();
      throw error;
    }
    const hash = createHash("sha256");
    let sizeBytes = 0;
    let settled = false;
    let resolveDigest: (digest: BlobDigest) => void = () => undefined;
    let rejectDigest: (error: unknown) => void = () => undefined;
    const digest = new Promise<BlobDigest>((resolve, reject) => {
      resolveDigest = resolve;
      rejectDigest = reject;
    });
    digest.catch(() => undefined);
    const sink = new Writable({
      highWaterMark: 256 * 1024,
      write(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        sizeBytes += chunk.byteLength;
        handle.write(chunk).then(() => callback(), callback);
      },
      final(callback) {
        handle
          .sync()
          .then(() => handle.close())
          .then(() => {
            resolveDigest({ sizeBytes, sha256: hash.digest("hex") });
            callback();
          }, callback);
      },
      destroy(error, callback) {
        if (error !== null) rejectDigest(error);
        handle.close().then(
          () => callback(error),
          () => callback(error),
        );
      },
    });
    const settle = (): void => {
      if (settled) throw new Error("a pending blob is committed or discarded once");
      settled = true;
    };
    return {
      sink,
      digest,
      commit: async (key) => {
        const target = this.#path(key);
        settle();
        try {
          await digest;
          await mkdir(dirname(target), { recursive: true });
          try {
            await link(tempPath, target);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === "EEXIST") {
              throw new ArchiveStoreError("exists", `an archive blob already exists under ${key}`);
            }
            throw new ArchiveStoreError("io", `could not store ${key}: ${String(error)}`, {
              cause: error,
            });
          }
          await syncFolder(dirname(target));
        } finally {
          // Committed or not, the temporary name goes, and then the lock.
          await unlink(tempPath).catch(() => undefined);
          await lock.release();
        }
      },
      discard: async () => {
        settle();
        if (!sink.destroyed && !sink.writableFinished) sink.destroy();
        await unlink(tempPath).catch(() => undefined);
        await lock.release();
      },
    };
  }

  async digest(key: string, onBytes?: (bytesDone: number) => void): Promise<BlobDigest> {
    const handle = await this.#openFile(key);
    let reading: Promise<{ bytesRead: number }> | undefined;
    try {
      // Two buffers, reused: the next chunk is read on the thread pool while this one is
      // hashed here (a 90 MB blob: ~70 ms against ~115 ms reading then hashing in turn), and
      // checking a large blob makes no garbage for the collector to chase.
      let [filled, spare] = [Buffer.allocUnsafe(READ_CHUNK), Buffer.allocUnsafe(READ_CHUNK)];
      const hash = createHash("sha256");
      let sizeBytes = 0;
      reading = handle.read(filled, 0, READ_CHUNK, 0);
      for (;;) {
        const { bytesRead } = await reading;
        if (bytesRead === 0) break;
        sizeBytes += bytesRead;
        reading = handle.read(spare, 0, READ_CHUNK, sizeBytes);
        hash.update(filled.subarray(0, bytesRead));
        onBytes?.(sizeBytes);
        [filled, spare] = [spare, filled];
      }
      return { sizeBytes, sha256: hash.digest("hex") };
    } catch (error) {
      throw new ArchiveStoreError("io", `could not read ${key}: ${String(error)}`, {
        cause: error,
      });
    } finally {
      // A failure between reads leaves one in flight: it ends before the file is closed.
      await reading?.catch(() => undefined);
      await handle.close();
    }
  }

  async open(key: string): Promise<{ sizeBytes: number; body: Readable }> {
    const handle = await this.#openFile(key);
    try {
      const { size } = await handle.stat();
      const body = createReadStream("", { fd: handle, highWaterMark: READ_CHUNK });
      return { sizeBytes: size, body };
    } catch (error) {
      await handle.close();
      throw new ArchiveStoreError("io", `could not read ${key}: ${String(error)}`, {
        cause: error,
      });
    }
  }

  async #openFile(key: string): Promise<FileHandle> {
    const path = this.#path(key);
    try {
      return await open(path, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw new ArchiveStoreError("not_found", `no archive blob under ${key}`);
      }
      throw new ArchiveStoreError("io", `could not open ${key}: ${String(error)}`, {
        cause: error,
      });
    }
  }

  /**
   * Reachable when its pending-blob folder exists (made as a capture would make it) and this
   * process may write there: what every capture needs first.
   */
  async health(): Promise<ArchiveStoreHealth> {
    const location = pathToFileURL(this.#root).href;
    const folder = join(this.#root, TEMP_FOLDER);
    try {
      await mkdir(folder, { recursive: true });
      await access(folder, constants.W_OK);
      return { reachable: true, location };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "error";
      return {
        reachable: false,
        location,
        problem: `cannot write archives under ${this.#root} (${code}): check that it is a folder this process may write, on a mounted disk`,
      };
    }
  }

  async exists(key: string): Promise<boolean> {
    const path = this.#path(key);
    try {
      return (await stat(path)).isFile();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw new ArchiveStoreError("io", `could not look for ${key}: ${String(error)}`, {
        cause: error,
      });
    }
  }

  async remove(key: string): Promise<void> {
    try {
      await unlink(this.#path(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }

  /**
   * Removes the pending blobs whose writers died (a process killed mid-capture): each one whose
   * lock names a dead process, or a process on another host that stopped touching it. A live
   * capture keeps its blob however long it takes.
   */
  async sweepAbandoned(
    onAbandoned?: (tag: PendingBlobTag) => Promise<void>,
  ): Promise<AbandonedSweep> {
    const names = await readdir(join(this.#root, TEMP_FOLDER)).catch(() => []);
    return this.#sweeper.sweep(pendingIds(names), onAbandoned);
  }

  #path(key: string): string {
    return join(this.#root, ...checkArchiveKey(key));
  }
}

/** A rename or link is durable only once its folder is synced. */
async function syncFolder(path: string): Promise<void> {
  const folder = await open(path, "r");
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
