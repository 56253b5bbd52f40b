import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import {
  clientAddress,
  clientAddressHeader,
  compileTrustedProxies,
  stampClientAddress,
  trustedProxiesSchema,
} from "./clientAddress.ts";

/** A request as it reaches an edge: the socket's peer and the X-Forwarded-For it carries. */
function arriving(peer: string, forwardedFor?: string) {
  return {
    socket: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor },
  };
}

const trusting = (value: string) => compileTrustedProxies(trustedProxiesSchema.parse(value));

describe("clientAddress", () => {
  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For claims", () => {
    expect(clientAddress(arriving("203.0.113.7", "198.51.100.1"), trusting(""))).toBe(
      "203.0.113.7",
    );
    expect(clientAddress(arriving("203.0.113.7"), trusting(""))).toBe("203.0.113.7");
  });

  it("is the socket's peer when that peer is not a trusted proxy", () => {
    expect(clientAddress(arriving("203.0.113.7", "198.51.100.1"), trusting("10.0.0.1"))).toBe(
      "203.0.113.7",
    );
  });

  it("behind trusted proxies, is the first untrusted hop of X-Forwarded-For from the right", () => {
    const trust = trusting("10.0.0.1, 10.1.0.0/16");
    // client-written garbage, the real client, then a second trusted proxy; the peer is the first.
    expect(clientAddress(arriving("10.0.0.1", "1.1.1.1, 198.51.100.9, 10.1.2.3"), trust)).toBe(
      "198.51.100.9",
    );
    expect(clientAddress(arriving("10.0.0.1", "198.51.100.9"), trust)).toBe("198.51.100.9");
    // Every hop trusted: the farthest one is the client.
    expect(clientAddress(arriving("10.0.0.1", "10.1.0.5"), trust)).toBe("10.1.0.5");
    // A trusted peer that forwarded nothing is itself the client.
    expect(clientAddress(arriving("10.0.0.1"), trust)).toBe("10.0.0.1");
  });

  it("trusts an IPv4 proxy on a dual-stack socket (IPv4-mapped IPv6), and proxy-addr's names", () => {
    expect(clientAddress(arriving("::ffff:127.0.0.1", "198.51.100.9"), trusting("127.0.0.1"))).toBe(
      "198.51.100.9",
    );
    expect(clientAddress(arriving("::1", "2001:db8::5"), trusting("loopback"))).toBe("2001:db8::5");
  });

  it("answers the socket's peer when the hop it would answer is not an address", () => {
    expect(clientAddress(arriving("10.0.0.1", "not-an-address"), trusting("10.0.0.1"))).toBe(
      "10.0.0.1",
    );
  });
});

describe("stampClientAddress", () => {
  it("replaces whatever a client sent under Berth's own header", () => {
    const request = arriving("203.0.113.7", "198.51.100.1") as {
      socket: { remoteAddress: string };
      headers: Record<string, string>;
    };
    request.headers[clientAddressHeader] = "192.0.2.1";
    stampClientAddress(request as unknown as IncomingMessage, trusting(""));
    expect(request.headers[clientAddressHeader]).toBe("203.0.113.7");
  });
});

describe("BERTH_TRUSTED_PROXIES", () => {
  it("is a comma-separated list of addresses, CIDR ranges and proxy-addr's names; default none", () => {
    expect(trustedProxiesSchema.parse(undefined)).toEqual([]);
    expect(trustedProxiesSchema.parse(" 10.0.0.1 , 10.1.0.0/16,,loopback, 2001:db8::/32")).toEqual([
      "10.0.0.1",
      "10.1.0.0/16",
      "loopback",
      "2001:db8::/32",
    ]);
  });

  it("refuses an entry that is not one, naming it", () => {
    const parsed = trustedProxiesSchema.safeParse("10.0.0.1, 10.0.0.300, proxy.example");
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      expect.stringContaining('"10.0.0.300"'),
      expect.stringContaining('"proxy.example"'),
    ]);
  });
});
