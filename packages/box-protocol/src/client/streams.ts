import { once } from "node:events";
import type { IncomingMessage } from "node:http";
import type { Writable } from "node:stream";
import { BoxError } from "../boxError.ts";
import type { Manifest } from "../manifest.ts";
import { CAPTURE_ESTIMATE_HEADER, streamRoutes } from "../operations.ts";
import { writeResponseSchema, type UploadOptions, type WriteResponse } from "../schemas/files.ts";
import { hydrateResponseSchema, type HydrateResult } from "../schemas/workspace.ts";
import { tarManifestReader } from "../tarManifest.ts";
import { encodeUploadQuery } from "../uploadQuery.ts";
import { parseReply, transportError, type ClientContext } from "./http.ts";
import { exchangeStream, readAll } from "./nodeHttp.ts";

/** A request body: bytes, text, or a stream (sent as it is read, never held whole). */
export type BodySource = Uint8Array | string | AsyncIterable<Uint8Array>;

export type UploadInput = UploadOptions & { readonly body: BodySource };

export interface Download {
  /** From Content-Length. */
  readonly size: number;
  readonly body: AsyncIterable<Uint8Array>;
}

/** Bytes of a transfer so far, and the total when known (a capture's is boxd's estimate). */
export interface TransferProgress {
  readonly bytesDone: number;
  readonly bytesTotal: number | undefined;
}

export interface CaptureInput {
  readonly destination: Writable;
  /** Called as bytes arrive (at most every chunk; the caller throttles). */
  readonly onProgress?: (progress: TransferProgress) => void;
}

export interface CaptureResult {
  /** Recomputed from the downloaded bytes, and equal to the manifest the archive carries. */
  readonly manifest: Manifest;
  readonly revision: string;
  /** Bytes written to the destination. */
  readonly bytes: number;
}

export async function upload(context: ClientContext, input: UploadInput): Promise<WriteResponse> {
  const { body, ...options } = input;
  const response = await exchangeStream(context, {
    method: "PUT",
    path: streamRoutes.upload,
    query: encodeUploadQuery(options),
    body,
    headers: { "content-type": "application/octet-stream" },
  });
  return parseReply(writeResponseSchema, await readAll(response), "upload");
}

export async function download(
  context: ClientContext,
  input: { readonly path: string },
): Promise<Download> {
  const response = await exchangeStream(context, {
    method: "GET",
    path: streamRoutes.download,
    query: { path: input.path },
  });
  return { size: Number(response.headers["content-length"] ?? 0), body: chunksOf(response) };
}

export async function hydrate(
  context: ClientContext,
  input: { readonly body: BodySource; readonly encoding?: "gzip" },
): Promise<HydrateResult> {
  const response = await exchangeStream(context, {
    method: "PUT",
    path: streamRoutes.hydrate,
    body: input.body,
    headers: {
      "content-type": "application/x-tar",
      ...(input.encoding === undefined ? {} : { "content-encoding": input.encoding }),
    },
  });
  return parseReply(hydrateResponseSchema, await readAll(response), "hydrate");
}

/**
 * Streams a capture into `destination` (which it ends) while re-deriving the manifest from the
 * very bytes written there, and checks it against the manifest the archive carries: what
 * comes back is verified, not taken on trust.
 */
export async function capture(context: ClientContext, input: CaptureInput): Promise<CaptureResult> {
  const response = await exchangeStream(context, { method: "GET", path: streamRoutes.capture });
  const estimate = Number(response.headers[CAPTURE_ESTIMATE_HEADER] ?? Number.NaN);
  const bytesTotal = Number.isSafeInteger(estimate) && estimate >= 0 ? estimate : undefined;
  const reader = tarManifestReader();
  // Rejects only when the reader fails, so a full sink never waits on a dead parser forever.
  const readerFailed = reader.result.then(() => new Promise<never>(() => undefined));
  let bytes = 0;
  try {
    for await (const chunk of chunksOf(response)) {
      bytes += chunk.byteLength;
      input.onProgress?.({ bytesDone: bytes, bytesTotal });
      await writeWithBackpressure(input.destination, chunk);
      await Promise.race([writeWithBackpressure(reader.sink, chunk), readerFailed]);
    }
    reader.sink.end();
    input.destination.end();
    await once(input.destination, "finish");
  } catch (error) {
    reader.sink.destroy();
    input.destination.destroy();
    throw error instanceof BoxError ? error : transportError(error);
  }
  const described = await reader.result;
  if (described.embeddedRevision === undefined) {
    throw new BoxError("invalid_archive", "the capture carries no manifest entry");
  }
  if (described.embeddedRevision !== described.revision) {
    throw new BoxError("invalid_archive", "the capture's manifest does not match its bytes");
  }
  return { manifest: described.computed, revision: described.revision, bytes };
}

async function writeWithBackpressure(stream: Writable, chunk: Uint8Array): Promise<void> {
  if (!stream.write(chunk)) await once(stream, "drain");
}

/** The response body, with a connection lost mid-stream surfacing as a BoxError. */
async function* chunksOf(response: IncomingMessage): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of response) yield chunk as Buffer;
  } catch (error) {
    throw transportError(error);
  }
}
