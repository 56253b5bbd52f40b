import { subscribe, unsubscribe } from "node:diagnostics_channel";
import http from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { SANDBOX } from "./kubeObjects.ts";
import { ReusedConnections } from "./reusedConnections.ts";
import { simClient } from "./tests/simClient.ts";

describe("connections to the API server", () => {
  it("are reused: a client's requests in sequence share one connection (client-node alone opens one each)", async () => {
    await using f = await simClient();
    const port = Number(new URL(f.sim.url).port);
    const opened: Socket[] = [];
    const count = (message: unknown): void => {
      const { socket } = message as { socket: Socket };
      socket.once("connect", () => {
        if (socket.remotePort === port) opened.push(socket);
      });
    };
    subscribe("net.client.socket", count);
    try {
      for (let i = 0; i < 5; i++) {
        await f.client.list(f.op(), SANDBOX, {});
      }
    } finally {
      unsubscribe("net.client.socket", count);
    }
    expect(opened).toHaveLength(1);
  });

  it("keep one agent per TLS identity: the same identity shares it, a rotated certificate gets a new one", () => {
    const connections = new ReusedConnections();
    const first = connections.reuse(new https.Agent({ cert: "a", key: "k" }));
    expect(connections.reuse(new https.Agent({ cert: "a", key: "k" }))).toBe(first);
    expect((first as unknown as { keepAlive: boolean }).keepAlive).toBe(true);
    const rotated = connections.reuse(new https.Agent({ cert: "b", key: "k" }));
    expect(rotated).not.toBe(first);
    expect(connections.reuse(new https.Agent({ cert: "b", key: "k" }))).toBe(rotated);
    // A plain-HTTP server (kube-sim's insecure mode) is another identity.
    expect(connections.reuse(new http.Agent())).not.toBe(rotated);
  });

  it("leave any other agent (a proxy's) as it is", () => {
    class ProxyAgent extends https.Agent {}
    const proxy = new ProxyAgent();
    expect(new ReusedConnections().reuse(proxy)).toBe(proxy);
    expect(new ReusedConnections().reuse(undefined)).toBeUndefined();
  });
});
