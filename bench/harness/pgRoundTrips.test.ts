import { createTestDatabase } from "@berth/testkit";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { PgRoundTripCounter, ReadyForQueryCounter } from "./pgRoundTrips.ts";

/** A backend message: type byte, then a length that counts itself, then the body. */
function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

describe("ReadyForQueryCounter", () => {
  it("counts ReadyForQuery messages however the stream is cut, never a Z inside a body", () => {
    const stream = Buffer.concat([
      message("T", Buffer.from("ZZZZ row description ZZ")),
      message("D", Buffer.alloc(300, 0x5a)),
      message("Z", Buffer.from("I")),
      message("C", Buffer.from("SELECT 1\0")),
      message("Z", Buffer.from("T")),
    ]);
    for (const size of [1, 2, 5, 7, stream.length]) {
      const counter = new ReadyForQueryCounter();
      for (let at = 0; at < stream.length; at += size) counter.push(stream.subarray(at, at + size));
      expect(counter.count, `chunks of ${String(size)}`).toBe(2);
    }
  });
});

describe("PgRoundTripCounter", () => {
  it("counts each statement's round trip through the relay, simple and extended protocol", async () => {
    await using database = await createTestDatabase();
    const { counter, url } = await PgRoundTripCounter.start(database.url);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      const afterStartup = counter.roundTrips;
      expect(afterStartup).toBe(1);

      await client.query("SELECT 1");
      await client.query("SELECT $1::int AS n", [2]);
      const { rows } = await client.query<{ n: number }>({
        name: "named",
        text: "SELECT $1::int AS n",
        values: [3],
      });
      expect(rows).toEqual([{ n: 3 }]);
      expect(counter.roundTrips - afterStartup).toBe(3);
    } finally {
      await client.end();
      await counter.close();
    }
  });
});
