import type { LeaseEventFeedSettings } from "@berth/sandbox/events";
import type { TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiEnvSchema,
  createBerthApi,
  serveApi,
  type AppRouter,
  type BerthApi,
} from "../src/index.ts";
import { useApiSuite } from "./support/apiSuite.ts";
import { replicaClient, serveReplicaProcess } from "./support/processes.ts";
import { callerAs, publicUrl, testSecret } from "./support/testApi.ts";
import { seedWorkspace, type SeededWorkspace } from "./support/world.ts";

// Live updates across replicas, over real HTTP and SSE: separate API instances — B in an OS
// process of its own, as a second web server — each with its own db pool and LISTEN
// connection, serve one database; a change made through one
// reaches a subscriber of another only through Postgres. Replica A waits a minute between
// polls, so an event it delivers within seconds came by NOTIFY.

const suite = useApiSuite();
let world: SeededWorkspace;
let outsider: SeededWorkspace;
const servers: Served[] = [];
let replicaA: Served;
let replicaB: Pick<Served, "url" | "close">;
const processes: Pick<Served, "url" | "close">[] = [];
let pollingReplica: Served;

interface Served {
  readonly api: BerthApi;
  readonly url: string;
  close(): Promise<void>;
}

/** One more API instance over the suite's database, as another web replica builds it. */
function replica(leaseEvents: LeaseEventFeedSettings): BerthApi {
  const env = apiEnvSchema.parse({
    DATABASE_URL: suite.databaseUrl,
    BERTH_SECRET: testSecret,
    BERTH_PUBLIC_URL: publicUrl,
    BERTH_DATA_DIR: suite.dataDir,
  });
  return createBerthApi(env, { leaseEvents });
}

/** A replica in a separate OS process (test/support/replicaServer.ts), as another web server. */
async function serveInProcessOfItsOwn(): Promise<Pick<Served, "url" | "close">> {
  const served = await serveReplicaProcess({
    DATABASE_URL: suite.databaseUrl,
    BERTH_SECRET: testSecret,
    BERTH_PUBLIC_URL: publicUrl,
    BERTH_DATA_DIR: suite.dataDir,
  });
  processes.push(served);
  return served;
}

/** Serves `api` as the web server does, on a loopback port; closed (with its API) after all. */
async function serve(api: BerthApi): Promise<Served> {
  const http = await serveApi(api);
  const served: Served = {
    api,
    url: `${http.url}/api/trpc`,
    async close() {
      await http.close();
      await api.close();
    },
  };
  servers.push(served);
  return served;
}

type Client = ReturnType<typeof replicaClient>;
type Received = {
  /** The SSE event id (a tracked event's), and the row id it names, carried as a bigint. */
  id?: string;
  rowId?: bigint;
  kind: string;
  transition?: string;
  workspaceGeneration?: number;
};

/** Subscribes to a session's events and records what arrives; `until` waits for a condition. */
function subscribe(client: Client, input: { sessionId: string; lastEventId?: string }) {
  const received: Received[] = [];
  const errors: TRPCClientError<AppRouter>[] = [];
  let changed = (): void => undefined;
  const subscription = client.events.session.subscribe(
    { workspaceId: world.workspaceId, ...input },
    {
      onData(item) {
        if ("data" in item) received.push({ ...item.data, id: item.id, rowId: item.data.id });
        else received.push(item);
        changed();
      },
      onError(error) {
        errors.push(error);
        changed();
      },
    },
  );
  return {
    received,
    errors,
    unsubscribe: () => subscription.unsubscribe(),
    events: () => received.filter((item) => item.kind === "event"),
    async until(test: () => boolean, timeoutMs = 5_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!test()) {
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(
            `timed out with ${JSON.stringify({ received, errors }, (_key, value: unknown) =>
              typeof value === "bigint" ? value.toString() : value,
            )}`,
          );
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          changed = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
  };
}

/** A session of the world with a warm lease held by one turn, `agent`. */
async function warmSession(via: Client): Promise<{ sessionId: string }> {
  const owner = await callerAs(suite.api, { cookie: world.owner.cookie });
  const session = await owner.sessions.create({ workspaceId: world.workspaceId, title: "live" });
  const on = { workspaceId: world.workspaceId, sessionId: session.id };
  // The spawner's arrival creates the box: the lease is warm when it answers.
  await via.leases.acquireTurn.mutate({ ...on, turnId: "agent" });
  return { sessionId: session.id };
}

/** Subscribers replica A's feed still serves (its watches leave when clients disconnect). */
async function subscribersOfA(): Promise<number> {
  const ctx = await replicaA.api.createContext({ headers: new Headers() });
  return ctx.leaseEvents.subscribers;
}

beforeAll(async () => {
  [world, outsider] = await Promise.all([
    seedWorkspace(suite.api, suite.db, "events"),
    seedWorkspace(suite.api, suite.db, "eavesdropper"),
  ]);
  [replicaA, replicaB, pollingReplica] = await Promise.all([
    serve(replica({ mode: "listen", pollIntervalMs: 60_000 })),
    serveInProcessOfItsOwn(),
    serve(replica({ mode: "poll", pollIntervalMs: 100 })),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([...servers, ...processes].map((served) => served.close()));
});

describe("events.session over SSE, across replicas", () => {
  it("delivers a change made through B to a subscriber of A, then resumes after the last id", async () => {
    const onA = replicaClient(replicaA, world.adminToken);
    const onB = replicaClient(replicaB, world.adminToken);
    const { sessionId } = await warmSession(onB);
    const on = { workspaceId: world.workspaceId, sessionId };

    const live = subscribe(onA, { sessionId });
    // The baseline generations item: A has read the lease, so what follows is news to it.
    await live.until(() => live.received.some((item) => item.kind === "generations"));
    expect(live.events()).toEqual([]);

    expect(await onB.leases.releaseTurn.mutate({ ...on, turnId: "agent" })).toEqual({
      released: true,
    });
    await live.until(() => live.events().length === 1);
    const [drain] = live.events();
    expect(drain).toMatchObject({ transition: "drain", kind: "event" });
    expect(drain?.rowId).toBe(BigInt(drain?.id ?? -1));
    await onB.leases.acquireTurn.mutate({ ...on, turnId: "next" });
    await live.until(() => live.events().length === 2);
    expect(live.events().map((e) => e.transition)).toEqual(["drain", "rearm"]);
    const lastSeen = live.events()[1]?.id;
    if (lastSeen === undefined) throw new Error("events carry their id");

    live.unsubscribe();
    await expect.poll(subscribersOfA, { timeout: 5_000 }).toBe(0);

    // While no one listens: two more changes.
    await onB.leases.releaseTurn.mutate({ ...on, turnId: "next" });
    await onB.leases.acquireTurn.mutate({ ...on, turnId: "third" });

    // Resume on either replica with the last id seen: exactly the later events, in order.
    for (const served of [replicaA, replicaB]) {
      const resumed = subscribe(replicaClient(served, world.adminToken), {
        sessionId,
        lastEventId: lastSeen,
      });
      await resumed.until(() => resumed.events().length === 2);
      expect(resumed.events().map((e) => e.transition)).toEqual(["drain", "rearm"]);
      expect(resumed.events().every((e) => BigInt(e.id ?? 0) > BigInt(lastSeen))).toBe(true);
      resumed.unsubscribe();
    }
  });

  it("reports a session's first lease to a subscriber that came before it", async () => {
    const owner = await callerAs(suite.api, { cookie: world.owner.cookie });
    const session = await owner.sessions.create({ workspaceId: world.workspaceId, title: "new" });
    const live = subscribe(replicaClient(replicaA, world.adminToken), { sessionId: session.id });
    await expect.poll(subscribersOfA, { timeout: 5_000 }).toBe(1);
    const onB = replicaClient(replicaB, world.adminToken);
    await onB.leases.acquireTurn.mutate({
      workspaceId: world.workspaceId,
      sessionId: session.id,
      turnId: "first",
    });
    // The spawner's arrival also creates the box: created, spawn, then commit_warm.
    await live.until(() => live.events().length >= 3);
    expect(live.events().map((e) => e.transition)).toEqual(["created", "spawn", "commit_warm"]);
    live.unsubscribe();
  });

  it("polls where LISTEN is not used (the embedded database's path)", async () => {
    const onB = replicaClient(replicaB, world.adminToken);
    const { sessionId } = await warmSession(onB);
    const live = subscribe(replicaClient(pollingReplica, world.adminToken), { sessionId });
    await live.until(() => live.received.some((item) => item.kind === "generations"));
    await onB.leases.releaseTurn.mutate({
      workspaceId: world.workspaceId,
      sessionId,
      turnId: "agent",
    });
    await live.until(() => live.events().length === 1);
    expect(live.events()[0]).toMatchObject({ transition: "drain" });
    live.unsubscribe();
  });

  it("checks membership when the subscription starts: an outsider gets NOT_FOUND", async () => {
    const { sessionId } = await warmSession(replicaClient(replicaB, world.adminToken));
    const stranger = subscribe(replicaClient(replicaA, outsider.adminToken), { sessionId });
    await stranger.until(() => stranger.errors.length > 0);
    expect(stranger.errors[0]?.data?.code).toBe("NOT_FOUND");
    expect(stranger.received).toEqual([]);
    stranger.unsubscribe();
  });
});
