import { createHash } from "node:crypto";
import { Transform } from "node:stream";
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  HeadObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import {
  ArchiveStoreError,
  type BlobDigest,
  type PendingBlob,
  type PendingBlobTag,
} from "./archiveStore.ts";
import { isNotFound, toStoreError } from "./s3Errors.ts";
import type { S3Location } from "./s3Location.ts";
import type { S3UploadLedger, UploadRecord } from "./s3UploadLedger.ts";

/** How a capture streams into its upload: parts of `partSizeBytes`, `queueSize` in flight. */
export interface UploadShape {
  readonly partSizeBytes: number;
  readonly queueSize: number;
}

/**
 * A pending blob of the S3 store: the sink streams through a sha256 into a lib-storage Upload
 * at `<prefix>/.incoming/<id>` (one PutObject when it fits one part, a multipart upload
 * otherwise), so at most queueSize × partSize bytes are held in memory, never the archive.
 * The digest settles once the upload is complete: the bytes are stored. Commit copies the
 * object to its content key unless one is there, then deletes the temporary key.
 */
export async function beginUpload(input: {
  readonly client: S3Client;
  readonly location: S3Location;
  readonly id: string;
  readonly tag: PendingBlobTag | undefined;
  readonly shape: UploadShape;
  /** Where the upload is recorded with its owner, before its first byte goes (see the store). */
  readonly ledger: S3UploadLedger | undefined;
  /** Called with the multipart upload's id as S3 gives it, before any part is sent. */
  readonly onUploadId: (key: string, record: (uploadId: string) => Promise<void>) => () => void;
}): Promise<PendingBlob> {
  const { client, location } = input;
  const tempKey = location.pendingKey(input.id);
  const record: UploadRecord | undefined = await input.ledger?.record({
    id: input.id,
    bucket: location.bucket,
    objectKey: tempKey,
    tag: input.tag,
  });
  const stopWatching = input.onUploadId(tempKey, (uploadId) =>
    record === undefined ? Promise.resolve() : record.setUploadId(uploadId),
  );
  const hash = createHash("sha256");
  let sizeBytes = 0;
  const sink = new Transform({
    highWaterMark: 256 * 1024,
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      sizeBytes += chunk.byteLength;
      callback(null, chunk);
    },
  });
  const upload = new Upload({
    client,
    params: {
      Bucket: location.bucket,
      Key: tempKey,
      Body: sink,
      // The capture it belongs to rides with the object, for whoever finds it abandoned.
      ...(input.tag === undefined
        ? {}
        : { Metadata: { "lease-id": input.tag.leaseId, "transfer-id": input.tag.transferId } }),
    },
    partSize: input.shape.partSizeBytes,
    queueSize: input.shape.queueSize,
  });
  const uploaded = upload.done();
  // A failed upload stops reading the sink: fail it too, so its writer stops rather than waits.
  uploaded.catch((error: unknown) => {
    sink.destroy(error instanceof Error ? error : new Error(String(error)));
  });
  const digest: Promise<BlobDigest> = uploaded.then(
    () => ({ sizeBytes, sha256: hash.digest("hex") }),
    (error: unknown) => {
      throw toStoreError(error, `upload ${tempKey}`);
    },
  );
  digest.catch(() => undefined);

  /**
   * Deletes the temporary object, then the upload's row; a failed delete gives the row up, so
   * the next sweep aborts the upload and removes the object.
   */
  const dropTemp = async (): Promise<void> => {
    stopWatching();
    try {
      await client.send(new DeleteObjectCommand({ Bucket: location.bucket, Key: tempKey }));
    } catch {
      await record?.abandon();
      return;
    }
    await record?.release().catch(() => undefined);
  };
  let settled = false;
  const settle = (): void => {
    if (settled) throw new Error("a pending blob is committed or discarded once");
    settled = true;
  };

  return {
    sink,
    digest,
    commit: async (key) => {
      const target = location.contentKey(key);
      settle();
      try {
        await digest;
        // S3 has no put-if-absent copy every server speaks: look first. Two captures of the
        // same key racing between the look and the copy both store the same content address.
        if (await objectExists(client, location.bucket, target)) {
          throw new ArchiveStoreError("exists", `an archive blob already exists under ${key}`);
        }
        await client.send(
          new CopyObjectCommand({
            Bucket: location.bucket,
            Key: target,
            CopySource: `${location.bucket}/${tempKey}`,
          }),
        );
      } catch (error) {
        throw toStoreError(error, `store ${key}`);
      } finally {
        // Committed or not, the temporary key goes.
        await dropTemp();
      }
    },
    discard: async () => {
      settle();
      if (!sink.destroyed && !sink.writableFinished) sink.destroy();
      await upload.abort().catch(() => undefined);
      await uploaded.catch(() => undefined);
      // An upload that finished before the abort left its object.
      await dropTemp();
    },
  };
}

/** Whether `key` is an object of `bucket` (a HeadObject); other failures are store errors. */
export async function objectExists(
  client: S3Client,
  bucket: string,
  key: string,
): Promise<boolean> {
  try {
    await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw toStoreError(error, `look for ${key}`);
  }
}
