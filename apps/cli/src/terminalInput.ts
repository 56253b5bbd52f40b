import { isNetworkError } from "./errors.ts";

/** What goes to the remote terminal, in the order it happened locally. */
export type TerminalInput =
  | { readonly kind: "keys"; readonly data: string }
  | { readonly kind: "resize"; readonly cols: number; readonly rows: number };

/** How the remote terminal is reached; the queue only orders and retries. */
export interface TerminalInputSink {
  send(input: TerminalInput): Promise<void>;
  /** A chunk of keystrokes may or may not have arrived: tell the person. */
  lost(input: TerminalInput): void;
  /** An answer other than a dropped connection (the terminal is gone, the token refused…). */
  fail(error: unknown): void;
}

/** Connection failures where the request surely never reached the server: safe to resend. */
const unsentCodes = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

function neverSent(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 6; depth++) {
    if ("code" in cause && typeof cause.code === "string" && unsentCodes.has(cause.code))
      return true;
    cause = cause.cause;
  }
  return false;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Keystrokes and window sizes, sent one request at a time so the remote sees them in the local
 * order: a command typed after a resize runs at the new size. Keys typed while a request is in
 * flight go together in the next one. A request that surely never left (connection refused while
 * the server restarts) is resent until `deadlineMs`; one whose fate is unknown is not (a
 * keystroke typed twice is worse than one lost), and the person is told.
 */
export class TerminalInputQueue {
  readonly #sink: TerminalInputSink;
  readonly #deadlineMs: number;
  readonly #retryMs: number;
  readonly #queue: TerminalInput[] = [];
  #size: { cols: number; rows: number } | undefined;
  #draining = false;
  #closed = false;

  constructor(options: { sink: TerminalInputSink; deadlineMs: number; retryMs: number }) {
    this.#sink = options.sink;
    this.#deadlineMs = options.deadlineMs;
    this.#retryMs = options.retryMs;
  }

  keys(data: string): void {
    if (data === "") return;
    const last = this.#queue.at(-1);
    if (last?.kind === "keys")
      this.#queue[this.#queue.length - 1] = { kind: "keys", data: last.data + data };
    else this.#queue.push({ kind: "keys", data });
    this.#drain();
  }

  /** Queues the size if it differs from the last one queued or sent. */
  resize(cols: number, rows: number): void {
    if (this.#size?.cols === cols && this.#size.rows === rows) return;
    this.#size = { cols, rows };
    this.#queue.push({ kind: "resize", cols, rows });
    this.#drain();
  }

  close(): void {
    this.#closed = true;
  }

  #drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    void this.#sendAll().finally(() => {
      this.#draining = false;
    });
  }

  async #sendAll(): Promise<void> {
    for (
      let next = this.#queue.shift();
      next !== undefined && !this.#closed;
      next = this.#queue.shift()
    )
      await this.#sendOne(next);
  }

  async #sendOne(input: TerminalInput): Promise<void> {
    const deadline = Date.now() + this.#deadlineMs;
    for (;;) {
      try {
        await this.#sink.send(input);
        return;
      } catch (error) {
        if (neverSent(error) && Date.now() < deadline && !this.#closed) {
          await sleep(this.#retryMs);
          continue;
        }
        if (isNetworkError(error) && Date.now() < deadline) this.#sink.lost(input);
        else this.#sink.fail(error);
        return;
      }
    }
  }
}
