import { describe, expect, it } from "vitest";
import { timeAgo } from "./relativeTime.ts";

const now = Date.parse("2030-01-02T12:00:00Z");
const before = (ms: number) => new Date(now - ms);

describe("how long ago a machine was seen", () => {
  it("reads a missing time as never, or as the caller says", () => {
    expect(timeAgo(null, now)).toBe("never");
    expect(timeAgo(null, now, "not yet")).toBe("not yet");
  });

  it("reads the last few seconds, and a time ahead of the clock, as just now", () => {
    expect(timeAgo(before(0), now)).toBe("just now");
    expect(timeAgo(before(4_999), now)).toBe("just now");
    expect(timeAgo(before(-3_000), now)).toBe("just now");
  });

  it("counts in the largest whole unit, rounding down", () => {
    expect(timeAgo(before(5_000), now)).toBe("5 s ago");
    expect(timeAgo(before(59_999), now)).toBe("59 s ago");
    expect(timeAgo(before(60_000), now)).toBe("1 min ago");
    expect(timeAgo(before(59 * 60_000 + 59_000), now)).toBe("59 min ago");
    expect(timeAgo(before(3_600_000), now)).toBe("1 h ago");
    expect(timeAgo(before(23 * 3_600_000 + 59 * 60_000), now)).toBe("23 h ago");
  });

  it("gives the timestamp itself from a day on", () => {
    expect(timeAgo(before(24 * 3_600_000), now)).toBe("2030-01-01 12:00 UTC");
    expect(timeAgo(new Date("2029-06-30T08:15:42Z"), now)).toBe("2029-06-30 08:15 UTC");
  });
});
