import { Readable } from "node:stream";
import { GetObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { ArchiveStoreError } from "./archiveStore.ts";
import { toStoreError } from "./s3Errors.ts";

/** Resumptions of one read after a dropped connection, each from the byte it stopped at. */
export const MAX_RESUMES = 3;

/**
 * Reads an object as one stream that survives dropped connections: when the body fails before
 * its last byte, it asks again for the rest (`Range: bytes=<done>-`, `If-Match` the first
 * answer's ETag, so a blob replaced meanwhile is never spliced in), at most MAX_RESUMES times.
 * The reader's sha256 over the whole stream is still what proves the bytes.
 */
export async function openResumable(input: {
  readonly client: S3Client;
  readonly bucket: string;
  readonly objectKey: string;
  /** The archive key, for messages. */
  readonly key: string;
}): Promise<{ sizeBytes: number; body: Readable }> {
  const { client, bucket, objectKey, key } = input;
  const get = (range?: { from: number; etag: string | undefined }) =>
    client.send(
      new GetObjectCommand({
        Bucket: bucket,
        Key: objectKey,
        ...(range === undefined
          ? {}
          : {
              Range: `bytes=${String(range.from)}-`,
              ...(range.etag === undefined ? {} : { IfMatch: range.etag }),
            }),
      }),
    );
  let first;
  try {
    first = await get();
  } catch (error) {
    throw toStoreError(error, `read ${key}`);
  }
  const sizeBytes = first.ContentLength ?? 0;
  const etag = first.ETag;
  const firstBody = streamOf(first.Body);

  async function* chunks(): AsyncGenerator<Buffer> {
    let body = firstBody;
    let done = 0;
    let resumes = 0;
    for (;;) {
      try {
        for await (const chunk of body as AsyncIterable<Buffer>) {
          done += chunk.byteLength;
          yield chunk;
        }
        if (done >= sizeBytes) return;
        throw new Error(`the connection ended after ${String(done)} of ${String(sizeBytes)} bytes`);
      } catch (error) {
        if (resumes >= MAX_RESUMES) {
          throw new ArchiveStoreError(
            "io",
            `could not read ${key}: dropped ${String(resumes + 1)} times, last: ${String(error)}`,
            { cause: error },
          );
        }
        resumes += 1;
      }
      try {
        body = streamOf((await get({ from: done, etag })).Body);
      } catch (error) {
        throw toStoreError(error, `resume reading ${key} at byte ${String(done)}`);
      }
    }
  }
  const body = Readable.from(chunks(), { objectMode: false });
  // Closing the stream early (a failed restore) also closes the connection under it.
  body.once("close", () => {
    firstBody.destroy();
  });
  return { sizeBytes, body };
}

function streamOf(body: unknown): Readable {
  if (!(body instanceof Readable))
    throw new ArchiveStoreError("io", "the object came without a stream");
  return body;
}
