// Issue 40: a call for an enrolled machine may land on any web replica. Two replicas — this
// process and another OS process — over one database: a call at the replica without the
// machine's channel is relayed to the one holding it; once the agent reconnects to the other
// replica, a relay naming the old connection is refused by its epoch and the new route works;
// a relay without the replicas' derived key is refused; an agent gone answers machine_offline.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BoxError, type AgentRequest } from "@berth/box-protocol";
import type { DbClient } from "@berth/db";
import { machineBoxClient } from "@berth/sandbox";
import { freePort, useTestDatabase } from "@berth/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiEnvSchema,
  createBerthApi,
  deriveSecret,
  serveApi,
  type BerthApi,
  type ServedApi,
} from "../src/index.ts";
import { serveReplicaProcess, type ServedReplica } from "./support/processes.ts";
import { connectScriptedAgent, type ScriptedAgent } from "./support/scriptedAgent.ts";
import { seedMachine } from "./support/seedMachine.ts";
import { publicUrl, testSecret } from "./support/testApi.ts";

const database = useTestDatabase();
const listing = (name: string) => ({
  entries: [{ path: name, name, type: "file", mode: 420, size: 3, mtimeMs: 1 }],
});

let here: BerthApi;
let servedHere: ServedApi;
let there: ServedReplica;
const agents: ScriptedAgent[] = [];

beforeAll(async () => {
  const [portHere, portThere] = [await freePort(), await freePort()];
  const shared = {
    DATABASE_URL: database.current.url,
    BERTH_SECRET: testSecret,
    BERTH_PUBLIC_URL: publicUrl,
    BERTH_DATA_DIR: join(tmpdir(), "berth-api-test-unused"),
  };
  here = createBerthApi(
    apiEnvSchema.parse({ ...shared, BERTH_REPLICA_URL: `http://127.0.0.1:${String(portHere)}` }),
    { agentChannels: { heartbeatMs: 0, callTimeoutMs: 10_000 } },
  );
  servedHere = await serveApi(here, { port: portHere });
  there = await serveReplicaProcess({
    ...shared,
    PORT: String(portThere),
    BERTH_REPLICA_URL: `http://127.0.0.1:${String(portThere)}`,
  });
}, 60_000);

afterAll(async () => {
  for (const agent of agents) agent.disconnect();
  await there.close();
  await servedHere.close();
  await here.close();
});

/** Connects a scripted agent to `server`; it lists one file named after where it is connected. */
async function agentAt(server: string, credential: string, name: string) {
  const agent = await connectScriptedAgent({
    server,
    credential,
    answer: (request: AgentRequest) => (request.op === "list" ? listing(name) : {}),
  });
  agents.push(agent);
  return agent;
}

/** The connection row, once it names the replica at `replicaUrl`. */
async function routeTo(db: DbClient, machineId: string, replicaUrl: string) {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    const row = await db.machineConnection.findUnique({ where: { machineId } });
    if (row?.replicaUrl === replicaUrl) return row;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`machine ${machineId} never connected through ${replicaUrl}`);
}

function relay(to: string, key: string | undefined, body: unknown): Promise<Response> {
  return fetch(`${to}/api/internal/relay`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
    },
    body: JSON.stringify(body),
  });
}

describe("a machine reachable from every replica", () => {
  it("relays a call to the replica holding the channel; refuses a stale epoch and a missing key; answers machine_offline once gone", async () => {
    const db = database.current.prisma;
    const machine = await seedMachine(db);
    const target = { machineId: machine.machineId, workspaceId: machine.workspaceId };
    const client = machineBoxClient(here.agentChannels, target);

    // The agent holds its channel on the other replica: a call here goes there and back.
    const first = await agentAt(there.origin, machine.credential, "via-there");
    const before = await routeTo(db, machine.machineId, there.origin);
    expect(here.agentChannels.holds(machine.machineId)).toBe(false);
    expect(await client.list({ path: "." })).toEqual(listing("via-there"));
    expect(first.requests.map((request) => request.op)).toEqual(["list"]);

    // It reconnects to this replica: the old route (the other replica, the old epoch) is
    // refused there with nothing run, and calls from the other replica now come here.
    first.disconnect();
    const second = await agentAt(servedHere.url, machine.credential, "via-here");
    const after = await routeTo(db, machine.machineId, servedHere.url);
    expect(after.connectionEpoch).toBeGreaterThan(before.connectionEpoch);
    const key = deriveSecret(testSecret, "agent-relay");
    const stale = await relay(there.origin, key, {
      ...target,
      connectionEpoch: before.connectionEpoch,
      op: "list",
      input: { path: "." },
      timeoutMs: 5_000,
    });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ error: { code: "stale_route" } });
    const fresh = await relay(servedHere.url, key, {
      ...target,
      connectionEpoch: after.connectionEpoch,
      op: "list",
      input: { path: "." },
      timeoutMs: 5_000,
    });
    expect(fresh.status).toBe(200);
    expect(await fresh.json()).toEqual({ result: listing("via-here") });
    expect(second.requests).toHaveLength(1);

    // Only replicas hold the key: none, or another secret's, is refused before anything runs.
    const body = { ...target, connectionEpoch: after.connectionEpoch, op: "list", input: {} };
    expect((await relay(servedHere.url, undefined, { ...body, timeoutMs: 5_000 })).status).toBe(
      401,
    );
    const forged = deriveSecret("another-secret-of-at-least-32-characters", "agent-relay");
    expect((await relay(servedHere.url, forged, { ...body, timeoutMs: 5_000 })).status).toBe(401);
    expect(second.requests).toHaveLength(1);

    // Gone from every replica: a call fails at once with machine_offline, nothing waits.
    second.disconnect();
    await second.ended;
    for (const deadline = Date.now() + 10_000; here.agentChannels.holds(machine.machineId);) {
      if (Date.now() > deadline) throw new Error("the channel never ended");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const offline = await client.list({ path: "." }).catch((error: unknown) => error);
    expect(offline).toBeInstanceOf(BoxError);
    expect(offline).toMatchObject({ code: "machine_offline" });
  }, 60_000);
});
