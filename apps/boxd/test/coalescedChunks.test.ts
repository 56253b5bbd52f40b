import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { describe, expect, it } from "vitest";
import { coalescedChunks } from "../src/workspace/coalescedChunks.ts";

/** The chunks as handed on: read by "data" events, since a read() would join what is buffered. */
async function passThrough(chunks: readonly Buffer[], bytes: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  const coalescing = Readable.from(chunks).pipe(coalescedChunks(bytes));
  coalescing.on("data", (chunk: Buffer) => out.push(chunk));
  await finished(coalescing);
  return out;
}

describe("coalescedChunks", () => {
  it("passes every byte on in order, in chunks of at least the size but the last", async () => {
    const input = Array.from({ length: 100 }, (_, i) => randomBytes(1000 + i * 37));
    const out = await passThrough(input, 64 * 1024);
    expect(Buffer.concat(out).equals(Buffer.concat(input))).toBe(true);
    expect(out.length).toBeGreaterThan(1);
    for (const chunk of out.slice(0, -1))
      expect(chunk.byteLength).toBeGreaterThanOrEqual(64 * 1024);
    expect(out.at(-1)?.byteLength).toBeGreaterThan(0);
  });

  it("hands on a chunk already as large as the size at once, and nothing for no input", async () => {
    const big = randomBytes(200_000);
    const out = await passThrough([big, randomBytes(10)], 64 * 1024);
    expect(out.map((chunk) => chunk.byteLength)).toEqual([200_000, 10]);
    expect(await passThrough([], 64 * 1024)).toEqual([]);
  });
});
