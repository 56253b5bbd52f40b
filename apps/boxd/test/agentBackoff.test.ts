import { describe, expect, it } from "vitest";
import { Backoff, BACKOFF_MAX_MS, BACKOFF_RESET_AFTER_MS } from "../src/agent/backoff.ts";

describe("the agent's reconnect backoff", () => {
  it("doubles from 0.5 s to 30 s, each delay in the upper half of its step", () => {
    const highest = new Backoff(() => 1);
    expect(Array.from({ length: 9 }, () => highest.next())).toEqual([
      500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ]);
    const lowest = new Backoff(() => 0);
    expect(Array.from({ length: 8 }, () => lowest.next())).toEqual([
      250, 500, 1000, 2000, 4000, 8000, 15_000, 15_000,
    ]);
    const middle = new Backoff(() => 0.5);
    expect(middle.next()).toBe(375);
  });

  it("starts again after reset, and never passes the cap however long it fails", () => {
    const backoff = new Backoff(() => 1);
    for (let i = 0; i < 100; i += 1) expect(backoff.next()).toBeLessThanOrEqual(BACKOFF_MAX_MS);
    backoff.reset();
    expect(backoff.next()).toBe(500);
  });

  it("starts over after a connection that lasted a minute, not after shorter ones", () => {
    const backoff = new Backoff(() => 1);
    expect([backoff.afterEnd(undefined), backoff.afterEnd(undefined)]).toEqual([500, 1000]);
    expect(backoff.afterEnd(BACKOFF_RESET_AFTER_MS - 1)).toBe(2000);
    expect(backoff.afterEnd(BACKOFF_RESET_AFTER_MS)).toBe(500);
    expect(backoff.afterEnd(5_000)).toBe(1000);
  });
});
