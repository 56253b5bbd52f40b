// A box reaches nothing of the host, part 1 (issue 31): every check runs as a command inside a
// real bubblewrap box, as an attacker's command would.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { networkInterfaces, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { deriveBoxToken, type BoxClient } from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BoxMetadata } from "../spawner/backend.ts";
import { testBoxMetadata } from "./boxMetadata.ts";
import { boxLayout, socketPathOf } from "../backends/local/boxFolder.ts";
import { probeEgress } from "../backends/local/boxNetwork.ts";
import { LocalBackend } from "../backends/local/localBackend.ts";
import { localExecutionProfile } from "../spawner/executionProfile.ts";

const ci = process.env.CI === "true" || process.env.CI === "1";
const egress = await probeEgress();
// Under CI the test command installs slirp4netns, nftables and the firewall: nothing is skipped.
const runnable = ci || egress.ok;
const secret = randomBytes(32).toString("hex");
const nonce = randomBytes(3).toString("hex");
/** The test's own peer: a network namespace it makes, joined to the host by a veth pair. */
const peer = {
  namespace: `berth-t-${nonce}`,
  hostLink: `bt${nonce}a`,
  peerLink: `bt${nonce}b`,
  hostAddress: "10.213.77.1",
  peerAddress: "10.213.77.2",
  port: 18_000 + Math.floor(Math.random() * 1_000),
};

let dataDir = "";
let canary = "";
let hostServer: Server;
let hostPort = 0;
let peerListener: ChildProcess | undefined;
let egressBox: { instanceId: string; client: BoxClient };
let closedBox: { instanceId: string; client: BoxClient };

function ip(...args: string[]): void {
  execFileSync("ip", args, { stdio: "ignore" });
}

function metadata(name: string): BoxMetadata {
  return testBoxMetadata(name, nonce);
}

/** The host's first non-loopback IPv4 address. */
function primaryAddress(): string {
  for (const addresses of Object.values(networkInterfaces()))
    for (const address of addresses ?? [])
      if (address.family === "IPv4" && !address.internal && !address.address.startsWith("10.213."))
        return address.address;
  throw new Error("this machine has no non-loopback IPv4 address");
}

/**
 * Connects to each target from inside the box, at once, and answers what each got: "open", or
 * the error (a refusal, a reset, a timeout). Node is in every box (/usr/bin/node).
 */
async function reachFrom(
  box: BoxClient,
  targets: readonly { host: string; port: number }[],
): Promise<string[]> {
  const script = `
    const net = require("node:net");
    const targets = JSON.parse(process.argv[1]);
    Promise.all(targets.map(({ host, port }) => new Promise((resolve) => {
      const socket = net.connect({ host, port, timeout: 2000 });
      socket.once("connect", () => { socket.destroy(); resolve("open"); });
      socket.once("timeout", () => { socket.destroy(); resolve("timeout"); });
      socket.once("error", (error) => resolve(error.code ?? String(error)));
    }))).then((results) => console.log(JSON.stringify(results)));`;
  const result = await box.exec({ argv: ["node", "-e", script, JSON.stringify(targets)] });
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as string[];
}

async function sh(box: BoxClient, script: string) {
  return box.exec({ argv: ["sh", "-c", script] });
}

beforeAll(async () => {
  if (!runnable) return;
  if (!egress.ok) throw new Error(`egress is required under CI: ${egress.reason}`);
  dataDir = await realpath(await mkdtemp(join(tmpdir(), "berth-iso-")));
  // A secret of the host's beside the data folder, readable only by its owner.
  canary = join(dirname(dataDir), `berth-canary-${nonce}`);
  await writeFile(canary, "host secret\n", { mode: 0o600 });

  // A host service on every address: what Berth's own ports (or any other) look like.
  hostServer = createServer((_, response) => response.end("host"));
  hostServer.listen(0, "0.0.0.0");
  await once(hostServer, "listening");
  hostPort = (hostServer.address() as { port: number }).port;

  ip("netns", "add", peer.namespace);
  ip("link", "add", peer.hostLink, "type", "veth", "peer", "name", peer.peerLink);
  ip("link", "set", peer.peerLink, "netns", peer.namespace);
  ip("addr", "add", `${peer.hostAddress}/30`, "dev", peer.hostLink);
  ip("link", "set", peer.hostLink, "up");
  ip("-n", peer.namespace, "addr", "add", `${peer.peerAddress}/30`, "dev", peer.peerLink);
  ip("-n", peer.namespace, "link", "set", peer.peerLink, "up");
  ip("-n", peer.namespace, "link", "set", "lo", "up");
  peerListener = spawn(
    "ip",
    [
      "netns",
      "exec",
      peer.namespace,
      process.execPath,
      "-e",
      `require("node:net").createServer((s) => s.end("peer")).listen(${String(peer.port)}, "0.0.0.0", () => console.log("up"))`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await once(peerListener.stdout ?? peerListener, "data");

  const open = (network: "egress" | "none") =>
    new LocalBackend({ dataDir, secret, isolation: "bubblewrap", network });
  const egressBackend = open("egress");
  const { instanceId } = await egressBackend.create({
    metadata: metadata("egress"),
    profile: localExecutionProfile,
  });
  egressBox = { instanceId, client: await egressBackend.connect(instanceId) };
  const closedBackend = open("none");
  const closed = await closedBackend.create({
    metadata: metadata("closed"),
    profile: localExecutionProfile,
  });
  closedBox = {
    instanceId: closed.instanceId,
    client: await closedBackend.connect(closed.instanceId),
  };
  await closedBox.client.write({ path: "closed-secret.txt", content: "the other box's" });
}, 120_000);

afterAll(async () => {
  if (!runnable) return;
  const cleaner = new LocalBackend({ dataDir, secret, isolation: "none" });
  for (const box of await cleaner.inventory()) await cleaner.terminate(box.instanceId);
  peerListener?.kill("SIGKILL");
  hostServer.close();
  for (const args of [
    ["link", "del", peer.hostLink],
    ["netns", "del", peer.namespace],
  ]) {
    try {
      ip(...args);
    } catch {
      // Already gone (the veth goes with either end).
    }
  }
  await rm(canary, { force: true });
  await rm(dataDir, { recursive: true, force: true });
});

describe.runIf(runnable)("a bubblewrap box reaches nothing of the host", () => {
  it("in egress mode reaches the test's own peer, and no address of the host", async () => {
    const host = primaryAddress();
    const results = await reachFrom(egressBox.client, [
      { host: peer.peerAddress, port: peer.port },
      { host: "127.0.0.1", port: 5432 },
      { host: "127.0.0.1", port: hostPort },
      { host, port: hostPort },
      { host, port: 5432 },
      { host: peer.hostAddress, port: hostPort },
      { host: "10.0.2.2", port: hostPort },
      { host: "169.254.169.254", port: 80 },
    ]);
    const [peerResult, ...hostResults] = results;
    expect(peerResult).toBe("open");
    for (const [index, result] of hostResults.entries())
      expect(result, `target ${String(index + 1)}`).not.toBe("open");
  });

  it("in none mode reaches nothing at all, the peer included", async () => {
    const results = await reachFrom(closedBox.client, [
      { host: peer.peerAddress, port: peer.port },
      { host: primaryAddress(), port: hostPort },
      { host: "127.0.0.1", port: hostPort },
    ]);
    expect(results.every((result) => result !== "open")).toBe(true);
    expect((await sh(closedBox.client, "cat /proc/net/dev")).stdout).not.toContain("tap0");
  });

  it("cannot reach another box's boxd: its socket is nowhere in the box", async () => {
    const otherSocket = socketPathOf(boxLayout({ dataDir, instanceId: closedBox.instanceId }));
    const result = await egressBox.client.exec({
      argv: [
        "node",
        "-e",
        `require("node:net").connect(process.argv[1]).on("connect", () => console.log("open")).on("error", (e) => console.log(e.code))`,
        otherSocket,
      ],
    });
    expect(result.stdout.trim()).toBe("ENOENT");
    expect((await sh(egressBox.client, `ls ${join(dataDir, "run")}`)).exitCode).not.toBe(0);
  });

  it("finds no token in any process's environment or command line", async () => {
    const token = deriveBoxToken({ secret, instanceId: egressBox.instanceId });
    const seen = await sh(
      egressBox.client,
      "for p in /proc/[0-9]*; do cat $p/environ $p/cmdline 2>/dev/null; echo; done",
    );
    // What the command can read of its own: its environment and command line are there.
    expect(seen.stdout).toContain("PATH=");
    expect(seen.stdout).not.toContain(token);
    // Nor on the host, where a process outside the box could read it.
    for (const pid of await readdir("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      const environ = await readFile(`/proc/${pid}/environ`, "utf8").catch(() => "");
      expect(environ.includes(token), `pid ${pid}`).toBe(false);
    }
  });

  it("cannot read the host's files: a canary beside the data folder, /etc/shadow, /root, another box's workspace", async () => {
    const otherWorkspace = boxLayout({ dataDir, instanceId: closedBox.instanceId }).workspace;
    for (const target of [
      canary,
      "/etc/shadow",
      "/root",
      join(otherWorkspace, "closed-secret.txt"),
      dataDir,
      join(dataDir, "secret"),
    ]) {
      const read = await sh(egressBox.client, `cat "${target}" || ls "${target}"`);
      expect(read.exitCode, target).not.toBe(0);
      expect(read.stdout).not.toMatch(/host secret|the other box's/);
    }
    // The root is the box's own: neither the checkout holding Berth's sources nor the host's /tmp.
    expect((await sh(egressBox.client, `test -e "${process.cwd()}"`)).exitCode).not.toBe(0);
    expect((await sh(egressBox.client, "ls -A /tmp")).stdout).not.toContain(basename(dataDir));
    expect((await sh(egressBox.client, "cat /etc/resolv.conf")).stdout).toContain("10.0.2.3");
  });
});
