import { mkdtemp, rm } from "node:fs/promises";
import type { IncomingMessage, Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { afterAll, beforeAll } from "vitest";

/** The part of a Koa context the abort front reads and writes. */
interface KoaContext {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string | string[] | undefined>;
  readonly req: IncomingMessage;
  status: number;
  body: unknown;
  length: number | undefined;
}
type KoaMiddleware = (context: KoaContext, next: () => Promise<void>) => Promise<void>;

/** The part of s3rver (a CommonJS package without types, a Koa app) the kit uses. */
interface S3rver {
  readonly httpServer: Server | undefined;
  readonly middleware: KoaMiddleware[];
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  readonly address: string;
  readonly port: number;
  readonly directory: string;
  readonly silent: boolean;
  readonly configureBuckets: readonly { readonly name: string }[];
}) => S3rver;
// Loaded by require and typed here, so no ambient declaration has to reach every package
// whose type check reads the kit's source.
const S3rver = createRequire(import.meta.url)("s3rver") as S3rverClass;

/** s3rver's fixed credentials: it checks signatures against these. */
const ACCESS_KEY_ID = "S3RVER";
const SECRET_ACCESS_KEY = "S3RVER";

/**
 * A local S3-compatible server (s3rver) on a free loopback port, its objects in a temporary
 * folder, with one bucket made. The real AWS SDK talks to it over HTTP, path-style.
 */
export interface TestS3Server extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`: the endpoint a client points at. */
  readonly endpoint: string;
  readonly bucket: string;
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /**
   * Stops serving and cuts every open connection (a store mid-upload sees its requests fail);
   * the objects stay for `restart`.
   */
  stop(): Promise<void>;
  /** Serves the same folder again, on the same port. */
  restart(): Promise<void>;
  /**
   * Cuts the connection of each of the next `reads` object GETs after `afterBytes` bytes of its
   * body, as a dropped network would.
   */
  dropReads(reads: number, afterBytes: number): void;
  /** The object GETs whose connection `dropReads` has cut so far (an object too short is not). */
  droppedReads(): number;
  /** The AbortMultipartUpload requests served so far (s3rver has none: the kit answers them). */
  abortedUploads(): readonly AbortedUpload[];
}

/** One AbortMultipartUpload the kit answered. */
export interface AbortedUpload {
  readonly bucket: string;
  readonly key: string;
  readonly uploadId: string;
}

export interface StartS3ServerOptions {
  /** The bucket to make; default `berth-test`. */
  readonly bucket?: string;
}

/** Starts an S3 server for a test file; stop it with `await using` or its dispose. */
export async function startS3Server(options: StartS3ServerOptions = {}): Promise<TestS3Server> {
  const bucket = options.bucket ?? "berth-test";
  const directory = await mkdtemp(join(tmpdir(), "berth-s3-"));
  let port = 0;
  let server: S3rver | undefined;
  const aborted: AbortedUpload[] = [];
  // s3rver answers AbortMultipartUpload with 405: this front, first of its middleware, answers
  // it as S3 does (204) and records it, so tests can see which uploads a sweep aborted. The
  // parts s3rver keeps are left; nothing reads them once their upload is aborted.
  const abortFront: KoaMiddleware = async (context, next) => {
    const uploadId = context.query["uploadId"];
    const match = /^\/([^/]+)\/(.+)$/.exec(context.path);
    if (context.method !== "DELETE" || typeof uploadId !== "string" || match === null) {
      await next();
      return;
    }
    aborted.push({
      bucket: match[1] ?? "",
      key: decodeURIComponent(match[2] ?? ""),
      uploadId,
    });
    context.status = 204;
  };

  const drops = { left: 0, afterBytes: 0, cut: 0 };
  const dropFront: KoaMiddleware = async (context, next) => {
    await next();
    if (context.method !== "GET" || drops.left === 0 || !(context.body instanceof Readable)) return;
    drops.left -= 1;
    const socket = context.req.socket;
    let sent = 0;
    const limit = drops.afterBytes;
    // Koa drops Content-Length when the body changes: the client must still expect all of it.
    const length = context.length;
    context.body = context.body.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          if (sent >= limit) return;
          const part = chunk.subarray(0, limit - sent);
          sent += part.byteLength;
          callback(null, part);
          if (sent < limit) return;
          drops.cut += 1;
          setImmediate(() => socket.destroy());
        },
      }),
    );
    if (length !== undefined) context.length = length;
  };
  const serve = async (): Promise<void> => {
    const next = new S3rver({
      address: "127.0.0.1",
      port,
      directory,
      silent: true,
      configureBuckets: [{ name: bucket }],
    });
    next.middleware.unshift(abortFront, dropFront);
    port = (await next.run()).port;
    server = next;
  };
  const stop = async (): Promise<void> => {
    const running = server;
    if (running === undefined) return;
    server = undefined;
    // Keep-alive sockets would hold close() open: a stop cuts them, as a crash would.
    running.httpServer?.closeAllConnections();
    await running.close();
  };

  try {
    await serve();
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    region: "us-east-1",
    credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
    stop,
    restart: async () => {
      if (server === undefined) await serve();
    },
    abortedUploads: () => [...aborted],
    dropReads: (reads, afterBytes) => {
      drops.left = reads;
      drops.afterBytes = afterBytes;
    },
    droppedReads: () => drops.cut,
    async [Symbol.asyncDispose]() {
      await stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * An S3 server for a whole test file: started before its tests, stopped after them. Read
 * `.current` inside a test or hook.
 */
export function useS3Server(options: StartS3ServerOptions = {}): {
  readonly current: TestS3Server;
} {
  let server: TestS3Server | undefined;
  beforeAll(async () => {
    server = await startS3Server(options);
  });
  afterAll(async () => {
    await server?.[Symbol.asyncDispose]();
  });
  return {
    get current(): TestS3Server {
      if (server === undefined) throw new Error("useS3Server: read .current inside a test or hook");
      return server;
    },
  };
}
