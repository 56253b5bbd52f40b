import type { Readable, Writable } from "node:stream";

export interface BatchedFeed {
  /** Resolves once the sink took the last write and was ended; rejects if a read or write failed. */
  readonly done: Promise<void>;
  /** Stops feeding (leaving the source flowing for its owner to drain, never destroyed). */
  stop(): void;
}

/**
 * Feeds `source` into `sink` in writes of `bytes` (the last may be shorter), in order, through
 * two buffers allocated once: a buffer is filled again only after the sink's callback for the
 * write that sent it, so the feed holds 2 × `bytes` whatever the stream's size.
 *
 * Why: a hydrate body arrives from its socket in reads of 64 KB at most, and gunzip runs each
 * write as one job on zlib's thread, handed over by the main thread, which is busy writing files
 * between jobs. Fed 1 MB at a time the two threads wait on each other less: a 140 MB hydrate
 * through boxd took 1.16–1.34 s against 1.63–1.92 s, and boxd's peak memory rose by 3 MiB.
 * (Joining the reads into new 1 MB buffers was as fast, but those outlived the young
 * generation and raised the peak by 25–30 MiB.)
 */
export function feedInBatches(source: Readable, sink: Writable, bytes: number): BatchedFeed {
  const buffers = [Buffer.allocUnsafe(bytes), Buffer.allocUnsafe(bytes)] as const;
  // The write that still holds each buffer, if any.
  const held: [Promise<void> | undefined, Promise<void> | undefined] = [undefined, undefined];
  let current: 0 | 1 = 0;
  let filled = 0;
  let stopped = false;
  let paused = false;
  let ended = false;
  let settle: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  const done = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });

  const stop = () => {
    if (stopped) return;
    stopped = true;
    source.off("data", onData);
    if (paused) source.resume();
  };
  const fail = (error: unknown) => {
    stop();
    settle?.reject(error);
  };

  /** Writes the current buffer's bytes and turns to the other buffer. */
  const send = () => {
    const chunk = buffers[current].subarray(0, filled);
    const written = new Promise<void>((resolve, reject) => {
      sink.write(chunk, (error) => (error ? reject(error) : resolve()));
    });
    written.catch(fail);
    held[current] = written;
    current = current === 0 ? 1 : 0;
    filled = 0;
  };

  /** Copies a read into the buffers; answers whether it had to pause to wait for one. */
  const onData = (chunk: Buffer): boolean => {
    let offset = 0;
    while (offset < chunk.byteLength) {
      const waiting = held[current];
      if (waiting !== undefined) {
        // This buffer is still with the sink: wait for it, keeping the rest of this read.
        source.pause();
        paused = true;
        const rest = chunk.subarray(offset);
        waiting.then(
          () => {
            if (stopped) return;
            held[current] = undefined;
            paused = false;
            if (onData(rest)) return;
            if (ended) finish();
            else source.resume();
          },
          // Already failed the feed (see `send`).
          () => undefined,
        );
        return true;
      }
      const copied = chunk.copy(buffers[current], filled, offset);
      filled += copied;
      offset += copied;
      if (filled === bytes) send();
    }
    return false;
  };

  /** After the last byte was copied: send what is left, then end the sink once it took all. */
  const finish = () => {
    if (filled > 0) send();
    Promise.all(held.filter((write) => write !== undefined)).then(() => {
      sink.end();
      settle?.resolve();
    }, fail);
  };

  source.once("error", fail);
  // A source may end while the feed still holds the rest of its last read: finish after it.
  source.once("end", () => {
    if (stopped) return;
    ended = true;
    if (!paused) finish();
  });
  source.on("data", onData);
  return { done, stop };
}
