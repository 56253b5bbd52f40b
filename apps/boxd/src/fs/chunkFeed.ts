/** What a feed hands its consumer next: bytes, the end, or the failure it stops with. */
type Item =
  | { readonly kind: "bytes"; readonly bytes: Uint8Array }
  | { readonly kind: "end" }
  | { readonly kind: "fail"; readonly error: Error };

/**
 * Bytes given one request at a time to a consumer that pulls them (an atomic write's copy loop),
 * so a write can stay open across requests. `asked` tells the giver the consumer has come back
 * for more: everything given before has been written.
 */
export class ChunkFeed implements AsyncIterable<Uint8Array> {
  readonly #items: Item[] = [];
  #wake: (() => void) | undefined;
  #askers: (() => void)[] = [];

  /** Resolves when the consumer next asks for bytes (the first time: it has started). */
  asked(): Promise<void> {
    return new Promise((resolve) => this.#askers.push(resolve));
  }

  give(bytes: Uint8Array): void {
    this.#put({ kind: "bytes", bytes });
  }

  end(): void {
    this.#put({ kind: "end" });
  }

  /** The consumer's next pull throws `error` (after the bytes given before it). */
  fail(error: Error): void {
    this.#put({ kind: "fail", error });
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    for (;;) {
      for (const asker of this.#askers.splice(0)) asker();
      let item = this.#items.shift();
      while (item === undefined) {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        item = this.#items.shift();
      }
      switch (item.kind) {
        case "bytes":
          yield item.bytes;
          break;
        case "end":
          return;
        case "fail":
          throw item.error;
      }
    }
  }

  #put(item: Item): void {
    this.#items.push(item);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
