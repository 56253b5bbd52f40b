import type { DbClient } from "@berth/db";
import { holderLiveness, thisHolder } from "../processes/holderLock.ts";
import type { PendingBlobTag } from "./archiveStore.ts";

/** How often a capture touches its row, so sweepers on other hosts see it is alive. */
const HEARTBEAT_MS = 10_000;

/** A row from another host untouched this long (a dozen heartbeats) names a dead capture. */
export const DEFAULT_UPLOAD_QUIET_MS = 12 * HEARTBEAT_MS;

/** A pending upload whose owner is gone, as the sweep acts on it. */
export interface AbandonedUpload {
  readonly id: string;
  readonly objectKey: string;
  readonly uploadId: string | null;
  readonly tag: PendingBlobTag | undefined;
}

/** One capture's row, held from before its first byte until it is committed or discarded. */
export interface UploadRecord {
  /** Records the multipart upload's id, once S3 has given one (before its first part goes). */
  setUploadId(uploadId: string): Promise<void>;
  /** Stops the heartbeat and deletes the row: nothing of the capture is left in the bucket. */
  release(): Promise<void>;
  /**
   * Gives the upload up: something of it may be left in the bucket, for the next sweep to
   * abort and delete. Never throws.
   */
  abandon(): Promise<void>;
}

/**
 * The S3 store's pending uploads in Postgres (table archive_uploads): S3 cannot tell a dead
 * capture's upload from a live one's, so each is recorded with its owner, judged as the
 * filesystem store judges a lock's holder — by its process on this host, by its heartbeat
 * (measured on the database's clock) from another.
 */
export class S3UploadLedger {
  readonly #db: DbClient;
  readonly #quietMs: number;

  constructor(options: { readonly db: DbClient; readonly quietMs?: number }) {
    this.#db = options.db;
    this.#quietMs = options.quietMs ?? DEFAULT_UPLOAD_QUIET_MS;
  }

  async record(input: {
    readonly id: string;
    readonly bucket: string;
    readonly objectKey: string;
    readonly tag: PendingBlobTag | undefined;
  }): Promise<UploadRecord> {
    const db = this.#db;
    const { id } = input;
    await db.archiveUpload.create({
      data: {
        id,
        bucket: input.bucket,
        objectKey: input.objectKey,
        owner: { ...(await thisHolder()) },
        leaseId: input.tag?.leaseId ?? null,
        transferId: input.tag?.transferId ?? null,
      },
    });
    const heartbeat = setInterval(() => {
      db.$executeRaw`UPDATE archive_uploads SET heartbeat_at = now() WHERE id = ${id}::uuid`.catch(
        () => undefined,
      );
    }, HEARTBEAT_MS);
    heartbeat.unref();
    return {
      setUploadId: async (uploadId) => {
        await db.archiveUpload.update({ where: { id }, data: { uploadId } });
      },
      release: async () => {
        clearInterval(heartbeat);
        await db.archiveUpload.deleteMany({ where: { id } });
      },
      abandon: async () => {
        clearInterval(heartbeat);
        // An owner of JSON null is no live holder: the next sweep, on any host, takes the row.
        // With the database down too, the row keeps this process as owner, and waits for it
        // to end.
        await db.$executeRaw`UPDATE archive_uploads SET owner = 'null'::jsonb WHERE id = ${id}::uuid`.catch(
          () => undefined,
        );
      },
    };
  }

  /** The uploads under `keyPrefix` of `bucket` whose owners are gone. */
  async abandoned(bucket: string, keyPrefix: string): Promise<AbandonedUpload[]> {
    const rows = await this.#db.$queryRaw<
      {
        id: string;
        object_key: string;
        upload_id: string | null;
        owner: unknown;
        lease_id: string | null;
        transfer_id: string | null;
        quiet: boolean;
      }[]
    >`
      SELECT id::text, object_key, upload_id, owner, lease_id::text, transfer_id::text,
             heartbeat_at < now() - make_interval(secs => ${this.#quietMs / 1000}) AS quiet
        FROM archive_uploads
       WHERE bucket = ${bucket} AND starts_with(object_key, ${keyPrefix})`;
    const found: AbandonedUpload[] = [];
    for (const row of rows) {
      const liveness = await holderLiveness(row.owner);
      const dead = liveness === "dead" || (liveness === "elsewhere" && row.quiet);
      if (!dead) continue;
      found.push({
        id: row.id,
        objectKey: row.object_key,
        uploadId: row.upload_id,
        tag:
          row.lease_id === null || row.transfer_id === null
            ? undefined
            : { leaseId: row.lease_id, transferId: row.transfer_id },
      });
    }
    return found;
  }

  /** Deletes a swept upload's row; whether this sweeper was the one to. */
  async forget(id: string): Promise<boolean> {
    return (await this.#db.archiveUpload.deleteMany({ where: { id } })).count === 1;
  }
}
