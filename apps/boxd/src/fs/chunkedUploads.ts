import { randomBytes } from "node:crypto";
import {
  BoxError,
  type OperationRequest,
  type OperationResponse,
  type WriteResponse,
} from "@berth/box-protocol";
import { MAX_INLINE_BYTES } from "../limits.ts";
import { atomicWrite } from "./atomicWrite.ts";
import { ChunkFeed } from "./chunkFeed.ts";
import type { DiskWatch } from "./diskWatch.ts";
import type { WorkspaceRoot } from "./workspaceRoot.ts";

/**
 * An upload left this long without a request is given up: its temp file is removed at the next
 * begin. Checked then rather than on a timer, so nothing runs while no one uploads; a temp file
 * a stopped boxd left is swept at its next start like any other (sweepTemp.ts).
 */
export const UPLOAD_IDLE_MS = 10 * 60_000;

interface OpenUpload {
  readonly path: string;
  readonly feed: ChunkFeed;
  /** The atomic write the chunks stream into; settles at commit or abort. */
  readonly written: Promise<WriteResponse>;
  received: number;
  /** A chunk is being written: another one now is refused, not queued. */
  writing: boolean;
  touchedAt: number;
}

/**
 * The upload in JSON chunks (uploadBegin/Chunk/Commit/Abort), for a caller whose channel carries
 * no streams (an enrolled machine's agent). Each upload is one atomicWrite held open across
 * requests, its content fed chunk by chunk: the same temp file beside the target, precondition
 * checks, disk admission and atomic rename as the streaming upload, so a commit answers what
 * that would.
 */
export class ChunkedUploads {
  readonly #open = new Map<string, OpenUpload>();
  readonly #root: WorkspaceRoot;
  readonly #disk: DiskWatch;
  readonly #now: () => number;

  constructor(options: {
    readonly root: WorkspaceRoot;
    readonly disk: DiskWatch;
    readonly now?: () => number;
  }) {
    this.#root = options.root;
    this.#disk = options.disk;
    this.#now = options.now ?? Date.now;
  }

  /** Starts the write: folders made and the precondition checked before it answers. */
  async begin(request: OperationRequest<"uploadBegin">): Promise<OperationResponse<"uploadBegin">> {
    await this.#removeIdle();
    await this.#disk.admit(0);
    const feed = new ChunkFeed();
    const started = feed.asked();
    const written = atomicWrite(this.#root, { ...request, content: this.#disk.metered(feed) });
    const uploadId = randomBytes(16).toString("hex");
    // Failures are answered by the request they happen under; this keeps them from being unhandled.
    written.catch(() => this.#open.delete(uploadId));
    // The write asks for its first bytes once its temp file is open.
    await Promise.race([started, written]);
    this.#open.set(uploadId, {
      path: request.path,
      feed,
      written,
      received: 0,
      writing: false,
      touchedAt: this.#now(),
    });
    return { uploadId };
  }

  /** Appends at exactly `offset`, and answers once the bytes are in the temp file. */
  async chunk(request: OperationRequest<"uploadChunk">): Promise<OperationResponse<"uploadChunk">> {
    const upload = this.#get(request.uploadId);
    if (upload.writing)
      throw new BoxError("invalid_request", `${upload.path}: a chunk is still being written`);
    if (request.offset !== upload.received)
      throw new BoxError(
        "invalid_request",
        `${upload.path}: ${String(upload.received)} bytes are uploaded, so the next chunk goes at offset ${String(upload.received)}, not ${String(request.offset)}`,
      );
    const bytes = Buffer.from(request.content, "base64");
    if (bytes.byteLength > MAX_INLINE_BYTES)
      throw new BoxError("too_large", "an upload chunk is at most 8 MiB");
    upload.writing = true;
    upload.touchedAt = this.#now();
    try {
      const taken = upload.feed.asked();
      upload.feed.give(bytes);
      // The write fails (the disk limit, an I/O error) or comes back for more.
      await Promise.race([taken, upload.written]);
      upload.received += bytes.byteLength;
      return { received: upload.received };
    } finally {
      upload.writing = false;
      upload.touchedAt = this.#now();
    }
  }

  /** Ends the bytes: the write checks its precondition again and renames into place. */
  async commit(request: OperationRequest<"uploadCommit">): Promise<WriteResponse> {
    const upload = this.#get(request.uploadId);
    if (upload.writing)
      throw new BoxError("invalid_request", `${upload.path}: a chunk is still being written`);
    this.#open.delete(request.uploadId);
    upload.feed.end();
    return upload.written;
  }

  /** Gives the upload up: its temp file (and any folder made for it) is removed. */
  async abort(request: OperationRequest<"uploadAbort">): Promise<OperationResponse<"uploadAbort">> {
    const upload = this.#get(request.uploadId);
    await this.#giveUp(request.uploadId, upload, "aborted");
    return { ok: true };
  }

  async #removeIdle(): Promise<void> {
    const now = this.#now();
    const idle = [...this.#open].filter(
      ([, upload]) => !upload.writing && now - upload.touchedAt >= UPLOAD_IDLE_MS,
    );
    await Promise.all(idle.map(([id, upload]) => this.#giveUp(id, upload, "idle too long")));
  }

  async #giveUp(id: string, upload: OpenUpload, why: string): Promise<void> {
    this.#open.delete(id);
    upload.feed.fail(new BoxError("invalid_request", `${upload.path}: the upload was ${why}`));
    await upload.written.catch(() => undefined);
  }

  #get(uploadId: string): OpenUpload {
    const upload = this.#open.get(uploadId);
    if (upload === undefined)
      throw new BoxError(
        "not_found",
        `no upload ${uploadId} in progress: it was committed, aborted, failed, or left idle for ${String(UPLOAD_IDLE_MS / 60_000)} minutes; begin it again`,
      );
    return upload;
  }
}
