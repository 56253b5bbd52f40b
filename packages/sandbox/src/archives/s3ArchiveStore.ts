import { createHash, randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { DeleteObjectCommand, GetObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type {
  AbandonedSweep,
  ArchiveStore,
  BlobDigest,
  PendingBlob,
  PendingBlobTag,
} from "./archiveStore.ts";
import { toStoreError } from "./s3Errors.ts";
import { S3Location } from "./s3Location.ts";
import { beginUpload, type UploadShape } from "./s3PendingBlob.ts";

export interface S3ArchiveStoreOptions {
  /** A client of the S3-compatible service (see createS3Client). */
  readonly client: S3Client;
  readonly bucket: string;
  /** The folder of the bucket this store keeps to; default the bucket's root. */
  readonly prefix?: string;
  /** Upload part size; default 8 MiB (S3's minimum is 5 MiB; 10,000 parts make 80 GB). */
  readonly partSizeBytes?: number;
  /** Parts uploaded at once; default 2 (memory held: queueSize × partSize). */
  readonly queueSize?: number;
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
  readonly #shape: UploadShape;

  constructor(options: S3ArchiveStoreOptions) {
    this.#client = options.client;
    this.#location = new S3Location(options.bucket, options.prefix ?? "");
    this.#shape = {
      partSizeBytes: options.partSizeBytes ?? 8 * 1024 * 1024,
      queueSize: options.queueSize ?? 2,
    };
  }

  begin(tag?: PendingBlobTag): Promise<PendingBlob> {
    return Promise.resolve(
      beginUpload({
        client: this.#client,
        location: this.#location,
        id: randomUUID(),
        tag,
        shape: this.#shape,
      }),
    );
  }

  /**
   * Nothing yet: pending uploads are not recorded with their owner, so none can be judged
   * abandoned (issue 36's Postgres bookkeeping is still to come).
   */
  sweepAbandoned(): Promise<AbandonedSweep> {
    return Promise.resolve({ removed: 0, deferred: 0 });
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

  async open(key: string): Promise<{ sizeBytes: number; body: Readable }> {
    const objectKey = this.#location.contentKey(key);
    try {
      const answer = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#location.bucket, Key: objectKey }),
      );
      if (!(answer.Body instanceof Readable)) throw new Error("the object came without a stream");
      return { sizeBytes: answer.ContentLength ?? 0, body: answer.Body };
    } catch (error) {
      throw toStoreError(error, `read ${key}`);
    }
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
