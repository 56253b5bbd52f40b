import { describe, expect, it } from "vitest";
import { ManualClock } from "./manualClock.ts";

describe("ManualClock", () => {
  it("moves only when advanced, and hands out copies", async () => {
    const clock = new ManualClock(new Date("2026-05-01T00:00:00Z"));
    const first = await clock.now();
    first.setFullYear(1999);
    expect((await clock.now()).toISOString()).toBe("2026-05-01T00:00:00.000Z");
    clock.advance(1500);
    expect((await clock.now()).toISOString()).toBe("2026-05-01T00:00:01.500Z");
  });

  it("refuses to go backwards", () => {
    expect(() => new ManualClock().advance(-1)).toThrow(RangeError);
  });
});
