import { once } from "node:events";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { encodeUploadQuery, endpointUrl } from "@berth/box-protocol";
import { fileTransferRoutes } from "@berth/validators";
import type { BerthClientOptions } from "./createBerthClient.ts";

/** Bytes of a transfer so far, and its total when known. */
export interface TransferProgress {
  readonly bytesDone: number;
  readonly bytesTotal: number | undefined;
}

/** What a file transfer's error carries: the same `data` a tRPC error of the API has. */
export interface BerthErrorData {
  readonly code: string;
  readonly httpStatus: number;
  readonly berth: {
    readonly code: string;
    readonly retryable: boolean;
    readonly epoch?: number;
  } | null;
}

/** A file transfer the API refused (or could not be reached for), shaped like a tRPC error. */
export class BerthRequestError extends Error {
  override readonly name = "BerthRequestError";
  constructor(
    message: string,
    readonly data: BerthErrorData,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

interface Scope {
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly path: string;
  readonly onProgress?: (progress: TransferProgress) => void;
}

export interface UploadFileInput extends Scope {
  /** The file's bytes: streamed as they are read, never held whole. */
  readonly body: AsyncIterable<Uint8Array> | Iterable<Uint8Array> | Uint8Array | string;
  /** Sent as Content-Length when known (the server refuses an oversized file before it starts). */
  readonly size?: number;
  /** A version from a read or an earlier write; null: the file must not exist yet. */
  readonly expectedVersion?: string | null;
  readonly mode?: number;
  readonly createParents?: boolean;
}

export interface UploadedFile {
  readonly path: string;
  readonly version: string;
  readonly size: number;
}

/**
 * Uploads a file to a session's box (PUT /api/files/upload): a write like any other, admitted
 * under the box's lease, and written atomically — a refused or broken upload leaves no file.
 */
export async function uploadFile(
  options: BerthClientOptions,
  input: UploadFileInput,
): Promise<UploadedFile> {
  const { body, size, onProgress, workspaceId, sessionId, ...target } = input;
  const url = endpointUrl(new URL(options.url), fileTransferRoutes.upload, {
    workspaceId,
    sessionId,
    ...encodeUploadQuery(target),
  });
  const source = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const total = source instanceof Uint8Array ? source.byteLength : size;
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.token}`,
    "content-type": "application/octet-stream",
  };
  if (total !== undefined) headers["content-length"] = String(total);
  const outgoing = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, {
    method: "PUT",
    headers,
  });
  const replied = once(outgoing, "response") as Promise<[IncomingMessage]>;
  let done = 0;
  async function* counted() {
    for await (const chunk of source instanceof Uint8Array ? [source] : source) {
      done += chunk.byteLength;
      onProgress?.({ bytesDone: done, bytesTotal: total });
      yield chunk;
    }
  }
  // An early refusal (too large, unauthorized) may come before the body is all sent.
  const sending = pipeline(Readable.from(counted(), { objectMode: false }), outgoing);
  sending.catch(() => undefined);
  let response: IncomingMessage;
  try {
    [response] = await replied;
  } catch (error) {
    throw unreachable(options, error);
  }
  const reply = await readText(response);
  if (!ok(response)) throw refusal(response, reply);
  await sending;
  return JSON.parse(reply) as UploadedFile;
}

export interface DownloadedFile {
  readonly size: number;
  /** The bytes as they arrive; progress is reported as they are read. */
  readonly body: AsyncIterable<Uint8Array>;
}

/** Downloads a file from a session's box (GET /api/files/download), streamed. */
export async function downloadFile(
  options: BerthClientOptions,
  input: Scope,
): Promise<DownloadedFile> {
  const { workspaceId, sessionId, path, onProgress } = input;
  const url = endpointUrl(new URL(options.url), fileTransferRoutes.download, {
    workspaceId,
    sessionId,
    path,
  });
  const outgoing = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, {
    headers: { authorization: `Bearer ${options.token}` },
  });
  outgoing.end();
  let response: IncomingMessage;
  try {
    [response] = (await once(outgoing, "response")) as [IncomingMessage];
  } catch (error) {
    throw unreachable(options, error);
  }
  if (!ok(response)) throw refusal(response, await readText(response));
  const size = Number(response.headers["content-length"] ?? Number.NaN);
  const bytesTotal = Number.isSafeInteger(size) ? size : undefined;
  async function* counted() {
    let done = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      done += chunk.byteLength;
      onProgress?.({ bytesDone: done, bytesTotal });
      yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
    if (bytesTotal !== undefined && done !== bytesTotal)
      throw new BerthRequestError(
        `The download was cut off after ${String(done)} of ${String(bytesTotal)} bytes; retry.`,
        { code: "SERVICE_UNAVAILABLE", httpStatus: 503, berth: null },
      );
  }
  return { size: bytesTotal ?? 0, body: counted() };
}

function ok(response: IncomingMessage): boolean {
  const status = response.statusCode ?? 0;
  return status >= 200 && status < 300;
}

async function readText(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** The API's error reply, in tRPC's wire shape: `{ error: { message, code, data } }`. */
function refusal(response: IncomingMessage, text: string): BerthRequestError {
  const status = response.statusCode ?? 0;
  try {
    const { error } = JSON.parse(text) as { error: { message: string; data: BerthErrorData } };
    return new BerthRequestError(error.message, error.data);
  } catch {
    return new BerthRequestError(`The server answered ${String(status)}: ${text.slice(0, 200)}`, {
      code: "INTERNAL_SERVER_ERROR",
      httpStatus: status,
      berth: null,
    });
  }
}

function unreachable(options: BerthClientOptions, cause: unknown): BerthRequestError {
  return new BerthRequestError(
    `Berth at ${options.url} could not be reached (${cause instanceof Error ? cause.message : String(cause)}); check the URL and that the server runs.`,
    { code: "SERVICE_UNAVAILABLE", httpStatus: 0, berth: { code: "unreachable", retryable: true } },
    { cause },
  );
}
