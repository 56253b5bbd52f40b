import { setTimeout as sleep } from "node:timers/promises";
import type { AgentRequest } from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdChannel, type ChannelEnd } from "../src/agent/channel.ts";
import { AgentBerthDouble } from "./agentBerthDouble.ts";

let berth: AgentBerthDouble;
beforeAll(async () => {
  berth = await AgentBerthDouble.start();
});
afterAll(async () => {
  await berth.close();
});

const facts = { os: "linux", arch: "x64", hasDisplay: false, boxdVersion: "0.1.0" };

function hold(idleMs: number, requests: AgentRequest[] = []) {
  const stop = new AbortController();
  const ended: Promise<ChannelEnd> = holdChannel({
    server: berth.url,
    credential: berth.credential,
    facts,
    signal: stop.signal,
    idleMs,
    onConnected: () => undefined,
    onRequest: (request) => requests.push(request),
    onMalformed: () => undefined,
    onRotate: () => undefined,
    onPing: () => undefined,
  });
  return { stop, ended };
}

describe("the agent's channel", () => {
  it("takes a silent channel for dead, and pings keep it alive", async () => {
    const requests: AgentRequest[] = [];
    const before = berth.hellos.length;
    const { ended } = hold(400, requests);
    await berth.connections(before + 1);
    let settled = false;
    void ended.then(() => (settled = true));
    // Pings and a request every 100 ms for 0.8 s: twice the idle limit, never silent that long.
    for (let i = 0; i < 8; i += 1) {
      await sleep(100);
      if (i === 3) void berth.request("list", { path: "" });
      else berth.ping();
    }
    expect(settled).toBe(false);
    expect(requests.map((request) => request.op)).toEqual(["list"]);
    expect(await ended).toEqual({
      kind: "lost",
      reason: "the channel was silent too long",
      connected: true,
    });
  });

  it("ends `stopped` when stopped, `revoked` on a 401", async () => {
    const before = berth.hellos.length;
    const held = hold(10_000);
    await berth.connections(before + 1);
    held.stop.abort();
    expect(await held.ended).toEqual({ kind: "stopped" });
    berth.revoked = true;
    expect(await hold(10_000).ended).toEqual({ kind: "revoked" });
  });
});
