import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AGENT_HELLO_HEADER,
  AGENT_ROUTES,
  agentRequestSchema,
  type AgentFacts,
  type AgentReply,
} from "@berth/box-protocol";
import { newMachineCredential } from "@berth/sandbox";
import { ManualClock } from "@berth/sandbox/testing";
import { useTestDatabase } from "@berth/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiEnvSchema, createBerthApi, serveApi, type BerthApi } from "../src/index.ts";
import { seedMachine } from "./support/seedMachine.ts";
import { publicUrl, testSecret } from "./support/testApi.ts";

const database = useTestDatabase();
const FACTS: AgentFacts = { os: "linux", arch: "x64", hasDisplay: false, boxdVersion: "0.1.0" };
const hello = Buffer.from(JSON.stringify(FACTS)).toString("base64url");
const listing = {
  entries: [{ path: "a.txt", name: "a.txt", type: "file", mode: 420, size: 3, mtimeMs: 1 }],
};

let api: BerthApi;
let served: { url: string; close(): Promise<void> };
let boxdDir: string;

beforeAll(async () => {
  boxdDir = await mkdtemp(join(tmpdir(), "berth-agent-bundle-"));
  const env = apiEnvSchema.parse({
    DATABASE_URL: database.current.url,
    BERTH_SECRET: testSecret,
    BERTH_PUBLIC_URL: publicUrl,
    BERTH_DATA_DIR: join(tmpdir(), "berth-api-test-unused"),
    BERTH_BOXD_ENTRY: join(boxdDir, "main.mjs"),
  });
  // Heartbeats run only when a test calls heartbeatOnce.
  api = createBerthApi(env, { clock: new ManualClock(), agentChannels: { heartbeatMs: 0 } });
  served = await serveApi(api);
});

afterAll(async () => {
  await served.close();
  await api.close();
  await rm(boxdDir, { recursive: true, force: true });
});

/** The agent's side of the channel, spoken over real HTTP: SSE in, POSTed replies out. */
async function connectAgent(credential: string) {
  const gone = new AbortController();
  const response = await fetch(`${served.url}${AGENT_ROUTES.channel}`, {
    headers: {
      authorization: `Bearer ${credential}`,
      [AGENT_HELLO_HEADER]: hello,
      accept: "text/event-stream",
    },
    signal: gone.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  expect(response.headers.get("cache-control")).toMatch(/^no-store\b/);
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream())
    .getReader();
  let buffered = "";
  return {
    /** The next event (comments skipped), or undefined once the stream ended. */
    async next(): Promise<{ event: string; data: string } | undefined> {
      for (;;) {
        const end = buffered.indexOf("\n\n");
        if (end >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const lines = block.split("\n").filter((line) => !line.startsWith(":"));
          if (lines.length === 0) continue;
          const field = (name: string) =>
            lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2) ?? "";
          return { event: field("event"), data: field("data") };
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffered += value;
      }
    },
    reply: (body: unknown) => postReply(credential, body),
    disconnect: () => {
      gone.abort();
    },
  };
}

function postReply(credential: string | undefined, body: unknown): Promise<Response> {
  return fetch(`${served.url}${AGENT_ROUTES.replies}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(credential === undefined ? {} : { authorization: `Bearer ${credential}` }),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("the agent channel over HTTP", () => {
  it("refuses a missing, unknown or revoked credential with 401, and a bad hello with 400", async () => {
    const db = database.current.prisma;
    const channel = `${served.url}${AGENT_ROUTES.channel}`;
    const missing = await fetch(channel, { headers: { [AGENT_HELLO_HEADER]: hello } });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: "unauthorized" } });
    const unknown = await fetch(channel, {
      headers: { authorization: `Bearer ${newMachineCredential()}`, [AGENT_HELLO_HEADER]: hello },
    });
    expect(unknown.status).toBe(401);

    const machine = await seedMachine(db);
    const badHello = await fetch(channel, {
      headers: { authorization: `Bearer ${machine.credential}`, [AGENT_HELLO_HEADER]: "e30" },
    });
    expect(badHello.status).toBe(400);
    expect(await badHello.json()).toMatchObject({ error: { code: "invalid_request" } });

    await db.machineCredential.updateMany({
      where: { machineId: machine.machineId },
      data: { revokedAt: new Date() },
    });
    const revoked = await fetch(channel, {
      headers: { authorization: `Bearer ${machine.credential}`, [AGENT_HELLO_HEADER]: hello },
    });
    expect(revoked.status).toBe(401);
    expect(api.agentChannels.holds(machine.machineId)).toBe(false);
  });

  it("serves a list call through a scripted agent, then ends at the agent's going", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const agent = await connectAgent(machine.credential);
    // The handler answers once the channel is open: the machine is reachable now.
    expect(api.agentChannels.holds(machine.machineId)).toBe(true);
    const seen = await db.machine.findUnique({ where: { id: machine.machineId } });
    expect(seen).toMatchObject({ os: "linux", arch: "x64", boxdVersion: "0.1.0" });
    expect(seen?.lastSeenAt).toBeInstanceOf(Date);

    const answer = api.agentChannels.call(machine, "list", { path: "." });
    const event = await agent.next();
    expect(event?.event).toBe("request");
    const request = agentRequestSchema.parse(JSON.parse(event?.data ?? ""));
    expect(request).toMatchObject({ op: "list", input: { path: "." } });
    const reply: AgentReply = { id: request.id, ok: true, result: listing };
    expect((await agent.reply(reply)).status).toBe(204);
    expect(await answer).toEqual(listing);

    await api.agentChannels.heartbeatOnce();
    expect((await agent.next())?.event).toBe("ping");

    agent.disconnect();
    await expect
      .poll(() => db.machineConnection.count({ where: { machineId: machine.machineId } }))
      .toBe(0);
    expect(api.agentChannels.holds(machine.machineId)).toBe(false);
  });

  it("ends the stream at the heartbeat after the machine is revoked", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const agent = await connectAgent(machine.credential);
    await db.machine.update({ where: { id: machine.machineId }, data: { revokedAt: new Date() } });
    await api.agentChannels.heartbeatOnce();
    // The check comes before the ping: the stream ends with none.
    expect(await agent.next()).toBeUndefined();
    expect(api.agentChannels.holds(machine.machineId)).toBe(false);
  });

  it("the replies endpoint checks the credential (401) and the body (400)", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const reply = { id: "x", ok: true, result: {} };
    expect((await postReply(undefined, reply)).status).toBe(401);
    expect((await postReply(newMachineCredential(), reply)).status).toBe(401);
    const notJson = await postReply(machine.credential, "{");
    expect(notJson.status).toBe(400);
    const badShape = await postReply(machine.credential, { id: "x", ok: "yes" });
    expect(badShape.status).toBe(400);
    expect(await badShape.json()).toMatchObject({ error: { code: "invalid_request" } });
    // A reply nobody waits for is accepted and dropped.
    expect((await postReply(machine.credential, reply)).status).toBe(204);
  });

  it("the rotate endpoint issues a new credential for a valid one, and refuses unknown or revoked ones (401)", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const rotate = (credential: string) =>
      fetch(`${served.url}${AGENT_ROUTES.rotate}`, {
        method: "POST",
        headers: { authorization: `Bearer ${credential}` },
      });
    expect((await rotate(newMachineCredential())).status).toBe(401);
    const issued = await rotate(machine.credential);
    expect(issued.status).toBe(201);
    const { credential } = (await issued.json()) as { credential: string };
    // Both work until the new one opens a channel.
    const accepted = await db.machineCredential.count({
      where: { machineId: machine.machineId, revokedAt: null },
    });
    expect(accepted).toBe(2);
    expect(credential).not.toBe(machine.credential);
    await db.machine.update({
      where: { id: machine.machineId },
      data: { revokedAt: new Date() },
    });
    const refused = await rotate(credential);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: "unauthorized" } });
    expect(await db.machineCredential.count({ where: { machineId: machine.machineId } })).toBe(2);
  });

  it("serves the agent bundle from beside boxd's entry, 503 until it is built", async () => {
    const bundle = `${served.url}${AGENT_ROUTES.bundle}`;
    const missing = await fetch(bundle);
    expect(missing.status).toBe(503);
    expect(await missing.text()).toContain("pnpm turbo run build");
    const source = `console.log("boxd agent");\n`.repeat(10_000);
    await writeFile(join(boxdDir, "boxd.mjs"), source);
    const found = await fetch(bundle);
    expect(found.status).toBe(200);
    expect(found.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(await found.text()).toBe(source);
  });
});
