// Pod addresses start anywhere (so two simulators rarely share one) but are always loopback
// addresses of their own: never the host's 127.0.0.1, never a block's .0 or .255, never twice.
import { describe, expect, it } from "vitest";
import { PodAddresses } from "./podAddresses.ts";

const POD_IP = /^127\.0\.(\d+)\.(\d+)$/;

describe("PodAddresses", () => {
  it("gives loopback addresses of their own, wherever it starts", () => {
    const addresses = new PodAddresses();
    // Enough to cross a block boundary (and the wrap-around) from any start.
    const given = Array.from({ length: 600 }, () => addresses.allocate());
    expect(new Set(given).size).toBe(given.length);
    for (const ip of given) {
      const [, high = "", low = ""] = POD_IP.exec(ip) ?? [];
      expect(ip).not.toBe("127.0.0.1");
      expect(Number(high)).toBeLessThan(256);
      expect(Number(low)).toBeGreaterThan(0);
      expect(Number(low)).toBeLessThan(255);
    }
  });

  it("gives a released address again", () => {
    const addresses = new PodAddresses();
    const given = Array.from({ length: 50 }, () => addresses.allocate());
    const freed = given[17] ?? "";
    addresses.release(freed);
    expect(addresses.allocate()).toBe(freed);
  });
});
