import { createHash, randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  HeadBucketCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import type { DbClient } from "@berth/db";
import type {
  AbandonedSweep,
  ArchiveStore,
  ArchiveStoreHealth,
  BlobDigest,
  PendingBlob,
  PendingBlobTag,
} from "./archiveStore.ts";
import { describeS3Problem, isNotFound, toStoreError } from "./s3Errors.ts";
import { S3Location } from "./s3Location.ts";
import { beginUpload, objectExists, type UploadShape } from "./s3PendingBlob.ts";
import { openResumable } from "./s3ResumableRead.ts";
import { S3UploadLedger } from "./s3UploadLedger.ts";

export interface S3ArchiveStoreOptions {
  /** A client of the S3-compatible service (see createS3Client). */
  readonly client: S3Client;
  readonly bucket: string;
  /** The endpoint the client was made for, as health tells it; absent means AWS itself. */
  readonly endpoint?: string;
  /** The folder of the bucket this store keeps to; default the bucket's root. */
  readonly prefix?: string;
  /** Upload part size; default 8 MiB (S3's minimum is 5 MiB; 10,000 parts make 80 GB). */
  readonly partSizeBytes?: number;
  /** Parts uploaded at once; default 2 (memory held: queueSize × partSize). */
  readonly queueSize?: number;
  /**
   * Where pending uploads are recorded with their owners, so the sweep can abort a dead
   * capture's. Without it nothing is recorded and the sweep finds nothing.
   */
  readonly db?: DbClient;
  /** How long a row owned from another host may go untouched before its owner counts as dead. */
  readonly foreignQuietMs?: number;
}

/**
 * Archive blobs as objects in an S3-compatible bucket (AWS, MinIO, R2, Ceph). Same guarantees
 * as the filesystem store where S3 can give them: a capture streams to a temporary key and is
 * copied to its content key only when none is there; a missing object is `not_found`.
 */
export class S3ArchiveStore implements ArchiveStore {
  readonly kind = "s3" as const;
  readonly #client: S3Client;
  readonly #location: S3Location;
  readonly #endpoint: string | undefined;
  readonly #shape: UploadShape;
  readonly #ledger: S3UploadLedger | undefined;
  /** Pending uploads waiting for their multipart upload id, by temporary key. */
  readonly #awaitingId = new Map<string, (uploadId: string) => Promise<void>>();

  constructor(options: S3ArchiveStoreOptions) {
    this.#client = options.client;
    this.#location = new S3Location(options.bucket, options.prefix ?? "");
    this.#endpoint = options.endpoint;
    this.#shape = {
      partSizeBytes: options.partSizeBytes ?? 8 * 1024 * 1024,
      queueSize: options.queueSize ?? 2,
    };
    this.#ledger =
      options.db === undefined
        ? undefined
        : new S3UploadLedger({
            db: options.db,
            ...(options.foreignQuietMs === undefined ? {} : { quietMs: options.foreignQuietMs }),
          });
    // lib-storage creates the multipart upload and sends its parts itself: the id is recorded
    // as CreateMultipartUpload answers, before this middleware lets the first part go.
    this.#client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === "CreateMultipartUploadCommand") {
          const key = (args.input as { Key?: string }).Key;
          const uploadId = (result.output as { UploadId?: string }).UploadId;
          const record = key === undefined ? undefined : this.#awaitingId.get(key);
          if (record !== undefined && uploadId !== undefined) await record(uploadId);
        }
        return result;
      },
      { step: "initialize", name: "berthRecordUploadId", override: true },
    );
  }

  begin(tag?: PendingBlobTag): Promise<PendingBlob> {
    return beginUpload({
      client: this.#client,
      location: this.#location,
      id: randomUUID(),
      tag,
      shape: this.#shape,
      ledger: this.#ledger,
      onUploadId: (key, record) => {
        this.#awaitingId.set(key, record);
        return () => this.#awaitingId.delete(key);
      },
    });
  }

  /**
   * For each recorded upload whose owner is gone: tells its tag, aborts the multipart upload,
   * deletes the temporary object, then forgets the row. A step that fails leaves the row for the
   * next sweep; each step may be done twice when sweepers race (all are idempotent).
   */
  async sweepAbandoned(
    onAbandoned?: (tag: PendingBlobTag) => Promise<void>,
  ): Promise<AbandonedSweep> {
    if (this.#ledger === undefined) return { removed: 0, deferred: 0 };
    const bucket = this.#location.bucket;
    let removed = 0;
    let deferred = 0;
    for (const upload of await this.#ledger.abandoned(bucket, this.#location.incoming)) {
      try {
        if (upload.tag !== undefined) await onAbandoned?.(upload.tag);
        if (upload.uploadId !== null) {
          await this.#client
            .send(
              new AbortMultipartUploadCommand({
                Bucket: bucket,
                Key: upload.objectKey,
                UploadId: upload.uploadId,
              }),
            )
            .catch((error: unknown) => {
              if (!isNotFound(error)) throw error;
            });
        }
        await this.#client.send(new DeleteObjectCommand({ Bucket: bucket, Key: upload.objectKey }));
        if (await this.#ledger.forget(upload.id)) removed += 1;
      } catch {
        deferred += 1;
      }
    }
    return { removed, deferred };
  }

  async digest(key: string, onBytes?: (bytesDone: number) => void): Promise<BlobDigest> {
    const { body } = await this.open(key);
    try {
      const hash = createHash("sha256");
      let sizeBytes = 0;
      for await (const chunk of body as AsyncIterable<Buffer>) {
        hash.update(chunk);
        sizeBytes += chunk.byteLength;
        onBytes?.(sizeBytes);
      }
      return { sizeBytes, sha256: hash.digest("hex") };
    } catch (error) {
      throw toStoreError(error, `read ${key}`);
    } finally {
      body.destroy();
    }
  }

  /** Reads a blob, resuming on a dropped connection (s3ResumableRead.ts). */
  async open(key: string): Promise<{ sizeBytes: number; body: Readable }> {
    return await openResumable({
      client: this.#client,
      bucket: this.#location.bucket,
      objectKey: this.#location.contentKey(key),
      key,
    });
  }

  /**
   * Asks for the bucket (HeadBucket: the least a capture needs to be answered) within
   * `timeoutMs`, the SDK's own retries included.
   */
  async health(options: { readonly timeoutMs?: number } = {}): Promise<ArchiveStoreHealth> {
    const timeoutMs = options.timeoutMs ?? 3_000;
    const where = {
      location: this.#location.url,
      ...(this.#endpoint === undefined ? {} : { endpoint: this.#endpoint }),
    };
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#location.bucket }), {
        abortSignal: AbortSignal.timeout(timeoutMs),
      });
      return { reachable: true, ...where };
    } catch (error) {
      const problem = describeS3Problem(error, {
        bucket: this.#location.bucket,
        endpoint: this.#endpoint ?? "AWS S3",
        timeoutMs,
      });
      return { reachable: false, ...where, problem };
    }
  }

  async exists(key: string): Promise<boolean> {
    return await objectExists(this.#client, this.#location.bucket, this.#location.contentKey(key));
  }

  async remove(key: string): Promise<void> {
    const objectKey = this.#location.contentKey(key);
    try {
      await this.#client.send(
        new DeleteObjectCommand({ Bucket: this.#location.bucket, Key: objectKey }),
      );
    } catch (error) {
      const mapped = toStoreError(error, `remove ${key}`);
      if (mapped.code !== "not_found") throw mapped;
    }
  }
}
