import { describe, expect, it } from "vitest";
import { interleaveCalls } from "./load.ts";

describe("interleaveCalls", () => {
  it("times every call, in blocks whose leading side alternates, the last block cut to size", async () => {
    const order: string[] = [];
    const times = await interleaveCalls({
      calls: 5,
      block: 2,
      berth: () => Promise.resolve(order.push("b")),
      baseline: () => Promise.resolve(order.push("x")),
    });
    expect(order.join("")).toBe("bbxxxxbbbx");
    expect([times.berth.length, times.baseline.length]).toEqual([5, 5]);
    expect(times.berth.every((ms) => ms >= 0)).toBe(true);
  });
});
