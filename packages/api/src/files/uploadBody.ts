/** Why an upload's body failed: larger than the limit, or its client went away. */
export const transferErrorCodes = ["too_large", "client_gone"] as const;

/** Why an upload's body failed: the API's own answer, never mistaken for the box's. */
export class TransferError extends Error {
  override readonly name = "TransferError";
  constructor(
    readonly code: (typeof transferErrorCodes)[number],
    message: string,
  ) {
    super(message);
  }

  static tooLarge(maxBytes: number): TransferError {
    return new TransferError(
      "too_large",
      `The file is larger than this server's upload limit of ${String(maxBytes)} bytes (BERTH_MAX_UPLOAD_BYTES); nothing was written.`,
    );
  }
}

/**
 * An upload's request body as it is passed on to the box: counted as it flows, cut off the
 * moment it passes the limit (whatever Content-Length claimed), and remembering why it failed,
 * since the box then only sees a broken stream (and discards its temporary file).
 */
export class UploadBody implements AsyncIterable<Uint8Array> {
  readonly #source: ReadableStream<Uint8Array>;
  readonly #maxBytes: number;
  #failure: TransferError | undefined;

  constructor(source: ReadableStream<Uint8Array>, maxBytes: number) {
    this.#source = source;
    this.#maxBytes = maxBytes;
  }

  /** Set when the body itself failed; the box's error is then only its consequence. */
  get failure(): TransferError | undefined {
    return this.#failure;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    let bytes = 0;
    const reader = this.#source.getReader();
    try {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch {
          this.#failure = new TransferError("client_gone", "The client stopped sending the file.");
          throw this.#failure;
        }
        if (chunk.done) return;
        bytes += chunk.value.byteLength;
        if (bytes > this.#maxBytes) {
          this.#failure = TransferError.tooLarge(this.#maxBytes);
          throw this.#failure;
        }
        yield chunk.value;
      }
    } finally {
      reader.releaseLock();
      if (this.#failure !== undefined) await this.#source.cancel().catch(() => undefined);
    }
  }
}
