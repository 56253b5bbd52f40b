import { randomBytes } from "node:crypto";
import { PassThrough, Readable, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { feedInBatches } from "../src/workspace/batchedFeed.ts";

/** A sink that takes each write a little later than it is made, keeping a copy of its bytes. */
function slowSink(options: { failAt?: number } = {}) {
  const writes: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      // A copy taken only now: a buffer the feed reused too early would show here as wrong bytes.
      writes.push(Buffer.from(chunk));
      if (writes.length === options.failAt) {
        callback(new Error("the sink broke"));
        return;
      }
      setTimeout(callback, 1);
    },
  });
  // The feed learns of a failed write from its callback; the stream's own error event is the
  // owner's (gunzip's handler, in boxd).
  sink.on("error", () => undefined);
  return { sink, writes };
}

/** `count` reads of varied sizes, as a socket hands them over. */
function reads(count: number): Buffer[] {
  return Array.from({ length: count }, (_, i) => randomBytes(1 + ((i * 7919) % 70_000)));
}

describe("feedInBatches", () => {
  it("hands every byte on in order, in writes of exactly the batch size but the last, through a slow sink", async () => {
    const input = reads(60);
    const { sink, writes } = slowSink();
    const feed = feedInBatches(Readable.from(input, { objectMode: false }), sink, 64 * 1024);
    await feed.done;
    expect(Buffer.concat(writes).equals(Buffer.concat(input))).toBe(true);
    expect(writes.length).toBeGreaterThan(2);
    for (const write of writes.slice(0, -1)) expect(write.byteLength).toBe(64 * 1024);
    expect(writes.at(-1)?.byteLength).toBeGreaterThan(0);
    expect(sink.writableEnded).toBe(true);
  });

  it("fails when a write fails, and leaves the rest of the source for its owner to read", async () => {
    const input = reads(60);
    const source = new PassThrough();
    const { sink } = slowSink({ failAt: 2 });
    const feed = feedInBatches(source, sink, 64 * 1024);
    for (const chunk of input) source.write(chunk);
    source.end();
    await expect(feed.done).rejects.toThrow("the sink broke");
    // The owner drains what is left, as boxd does to answer the client.
    source.resume();
    await sleep(10);
    expect(source.readableEnded).toBe(true);
  });

  it("stops on request without destroying the source", async () => {
    const source = new PassThrough();
    const { sink } = slowSink();
    // Counted as the feed asks, not as the sink gets to them: a Writable queues what it is
    // handed while a write is under way, and takes the queue after a stop too.
    let asked = 0;
    const write = sink.write.bind(sink) as (chunk: Buffer, callback: () => void) => boolean;
    sink.write = ((chunk: Buffer, callback: () => void) => {
      asked += 1;
      return write(chunk, callback);
    }) as typeof sink.write;
    const feed = feedInBatches(source, sink, 1024);
    source.write(randomBytes(5000));
    await sleep(10);
    feed.stop();
    expect(source.destroyed).toBe(false);
    const seen = asked;
    expect(seen).toBeGreaterThan(0);
    source.end(randomBytes(5000));
    source.resume();
    await sleep(10);
    expect(asked).toBe(seen);
    expect(source.readableEnded).toBe(true);
  });
});
