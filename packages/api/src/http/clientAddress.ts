import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { isIP } from "node:net";
import proxyAddr from "proxy-addr";
import { z } from "zod";

// Light on purpose (zod and proxy-addr only): the web server's entry imports it before Next
// loads, and the API's root entry takes seconds to load.

/**
 * The header Berth's own HTTP edges (serveApi, the web server) set to the client's address,
 * overwriting whatever a client sent under that name: the only header sign-in throttling reads.
 */
export const clientAddressHeader = "x-berth-client-address";

/** Whether the hop at `address` (`hop` 0 is the socket's peer) is a proxy Berth trusts. */
export type TrustedProxies = (address: string, hop: number) => boolean;

/**
 * BERTH_TRUSTED_PROXIES: comma-separated IP addresses and CIDR ranges (or proxy-addr's names
 * `loopback`, `linklocal`, `uniquelocal`) of the reverse proxies in front of Berth. Unset, no
 * proxy is trusted and every client is its socket's address.
 */
export const trustedProxiesSchema = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ""),
  )
  .superRefine((entries, ctx) => {
    for (const entry of entries) {
      try {
        proxyAddr.compile(entry);
      } catch {
        ctx.addIssue({
          code: "custom",
          message: `"${entry}" is not an IP address or CIDR range (e.g. 10.0.0.5, 10.0.0.0/24, loopback)`,
        });
      }
    }
  });

/** The trust rule for validated BERTH_TRUSTED_PROXIES entries. */
export function compileTrustedProxies(entries: readonly string[]): TrustedProxies {
  return proxyAddr.compile([...entries]);
}

/** What the client address is computed from: an IncomingMessage, or its two relevant parts. */
export interface AddressedRequest {
  readonly socket: { readonly remoteAddress?: string | undefined };
  readonly headers: IncomingHttpHeaders;
}

/**
 * The client's address: the socket's peer, unless that peer is a trusted proxy; then
 * X-Forwarded-For is walked from the right, past trusted proxies, to the first address that is
 * not one (each proxy appends the address it received from, so only the hops right of the
 * first untrusted one were written by someone Berth trusts). This is proxy-addr's walk, done
 * here on the two parts of a request it reads; the trust rule (ranges, IPv4-mapped IPv6) is
 * proxy-addr's own. A hop that is not an address means the chain cannot be read: the socket's
 * peer is answered.
 */
export function clientAddress(request: AddressedRequest, trust: TrustedProxies): string {
  const socketAddress = request.socket.remoteAddress ?? "";
  const forwarded = [request.headers["x-forwarded-for"] ?? []]
    .flat()
    .join(",")
    .split(",")
    .map((hop) => hop.trim())
    .filter((hop) => hop !== "")
    .reverse();
  // Nearest first: the socket's peer is hop 0.
  const hops = [socketAddress, ...forwarded];
  let hop = 0;
  while (hop < hops.length - 1 && trust(hops[hop] ?? "", hop)) hop += 1;
  const address = hops[hop] ?? "";
  return isIP(address) !== 0 ? address : socketAddress;
}

/**
 * Sets the client address header on a request as it arrives, replacing any value a client sent:
 * what each of Berth's HTTP edges does before the request reaches the API.
 */
export function stampClientAddress(request: IncomingMessage, trust: TrustedProxies): void {
  request.headers[clientAddressHeader] = clientAddress(request, trust);
}
