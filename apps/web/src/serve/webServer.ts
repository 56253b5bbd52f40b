import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { stampClientAddress, type TrustedProxies } from "@berth/api/clientAddress";
import {
  answerLaunchChallenge,
  LAUNCH_CHALLENGE_HEADER,
  LAUNCH_PROOF_HEADER,
} from "@berth/launch-protocol";
import next from "next";

export interface WebServer {
  /** The server's origin, e.g. http://127.0.0.1:3000. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The dashboard's build (`next build` in `dir`) served as `next start` serves it, behind Berth's
 * HTTP edge: each request's client address is stamped from its socket and BERTH_TRUSTED_PROXIES
 * (@berth/api/clientAddress) before Next sees it. `next start` alone would not do: it fills
 * X-Forwarded-For from the socket only when a client sent none, so a client's own would count.
 */
export async function startWebServer(options: {
  readonly dir: string;
  readonly host: string;
  readonly port: number;
  readonly trustedProxies: TrustedProxies;
  /** The launcher's nonce (BERTH_LAUNCH_NONCE): its readiness probe's challenges are answered. */
  readonly launchNonce?: string | undefined;
}): Promise<WebServer> {
  const app = next({ dev: false, dir: options.dir, hostname: options.host, port: options.port });
  const handle = app.getRequestHandler();
  await app.prepare();
  const server = createServer((req, res) => {
    stampClientAddress(req, options.trustedProxies);
    if (options.launchNonce !== undefined) {
      const proof = answerLaunchChallenge(
        req.headers[LAUNCH_CHALLENGE_HEADER],
        options.launchNonce,
      );
      if (proof !== undefined) res.setHeader(LAUNCH_PROOF_HEADER, proof);
    }
    // Next answers its own errors; one that escapes it ends the connection.
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${String(port)}`,
    async close() {
      // Live streams (server-sent events) would hold a graceful close open: a stop is a stop.
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
    },
  };
}
