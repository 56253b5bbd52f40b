/** What a person sends a terminal: keystrokes, or the size its window became. */
export type TerminalInput =
  | { readonly kind: "keys"; readonly data: string }
  | { readonly kind: "resize"; readonly cols: number; readonly rows: number };

/**
 * Sends keystrokes and sizes one call at a time, in the order they happened: separate requests
 * may overtake each other, and a shell given "ls" after "\n" runs something else. What arrives
 * while a call is out is merged (keys appended, only the latest size kept), so fast typing
 * costs a few calls rather than one per key.
 */
export class TerminalInputQueue {
  readonly #send: (input: TerminalInput) => Promise<unknown>;
  readonly #failed: (error: unknown) => void;
  #waiting: TerminalInput[] = [];
  #sending = false;

  constructor(send: (input: TerminalInput) => Promise<unknown>, failed: (error: unknown) => void) {
    this.#send = send;
    this.#failed = failed;
  }

  keys(data: string): void {
    const last = this.#waiting.at(-1);
    if (last?.kind === "keys")
      this.#waiting[this.#waiting.length - 1] = { kind: "keys", data: last.data + data };
    else this.#waiting.push({ kind: "keys", data });
    void this.#drain();
  }

  resize(cols: number, rows: number): void {
    const last = this.#waiting.at(-1);
    if (last?.kind === "resize") this.#waiting.pop();
    this.#waiting.push({ kind: "resize", cols, rows });
    void this.#drain();
  }

  async #drain(): Promise<void> {
    if (this.#sending) return;
    this.#sending = true;
    try {
      for (let next = this.#waiting.shift(); next !== undefined; next = this.#waiting.shift()) {
        try {
          await this.#send(next);
        } catch (error) {
          // Keys typed after a failed call would run out of context: they go with it.
          this.#waiting = this.#waiting.filter((input) => input.kind === "resize");
          this.#failed(error);
        }
      }
    } finally {
      this.#sending = false;
    }
  }
}
