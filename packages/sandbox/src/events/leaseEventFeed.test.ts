import { createDbClient, type DbClient } from "@berth/db";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  seedSession,
  useLeaseWorld,
  warmLease,
  type SeededSession,
} from "../tests/leaseFixture.ts";
import { progressRecorder } from "../archives/progressRecorder.ts";
import {
  LeaseEventFeed,
  listenerApplicationName,
  type LeaseEventFeedSettings,
  type LeaseFeedItem,
} from "./index.ts";

// Real Postgres, real LISTEN/NOTIFY: the feed reads lease_events rows written by the lease
// functions in other connections. Where a test proves the NOTIFY path, the poll interval is a
// minute, so only a notification can deliver within the test's few seconds.

const world = useLeaseWorld();
let feedDb: DbClient;
const feeds: LeaseEventFeed[] = [];
const aborts: AbortController[] = [];

beforeAll(() => {
  feedDb = createDbClient({ connectionString: world.current.url, maxConnections: 4 });
});
afterEach(async () => {
  for (const abort of aborts.splice(0)) abort.abort();
  await Promise.all(feeds.splice(0).map((feed) => feed.close()));
});
afterAll(async () => {
  await feedDb.$disconnect();
});

function newFeed(settings: LeaseEventFeedSettings & { onListenError?: (e: unknown) => void }) {
  const feed = new LeaseEventFeed({ db: feedDb, connectionString: world.current.url, ...settings });
  feeds.push(feed);
  return feed;
}

/** Subscriptions started on each feed by collect, so each knows how many come before it. */
const collected = new WeakMap<LeaseEventFeed, number>();

/**
 * Consumes a subscription in the background; `until` resolves once the items satisfy a test,
 * `started` once the subscription made its first read: a live tail's "from now on" begins
 * there, so a change meant to reach it is made after.
 */
function collect(feed: LeaseEventFeed, s: SeededSession, afterId: bigint | null = null) {
  const ordinal = (collected.get(feed) ?? 0) + 1;
  collected.set(feed, ordinal);
  const abort = new AbortController();
  aborts.push(abort);
  const items: LeaseFeedItem[] = [];
  let changed: () => void = () => undefined;
  const done = (async () => {
    for await (const item of feed.follow({ ...s, afterId, signal: abort.signal })) {
      items.push(item);
      changed();
    }
  })();
  return {
    items,
    abort,
    done,
    transitions: () => eventsOf(items).map((event) => event.transition),
    async started(): Promise<void> {
      await expect.poll(() => feed.subscribers).toBeGreaterThanOrEqual(ordinal);
    },
    async until(test: (items: LeaseFeedItem[]) => boolean, timeoutMs = 5_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!test(items)) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out; got ${JSON.stringify(summary(items))}`);
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

function transfers(items: LeaseFeedItem[]) {
  return items.flatMap((item) => (item.kind === "transfer" ? [item] : []));
}

function eventsOf(items: LeaseFeedItem[]) {
  return items.flatMap((item) => (item.kind === "event" ? [item.event] : []));
}

function summary(items: LeaseFeedItem[]) {
  return items.map((item) => {
    switch (item.kind) {
      case "event":
        return item.event.transition;
      case "generations":
        return `gen ${String(item.workspaceGeneration)}`;
      case "transfer":
        return `${item.operation} ${item.phase} ${String(item.bytesDone)}`;
      case "route":
        return `route ${String(item.activeEpoch)}`;
    }
  });
}

function spawn(s: SeededSession, holder = "turn:t1") {
  return world.current.leases.acquire({ ...s, kind: "turn", holderId: holder });
}

/** Retries `probe` every 50 ms for up to 5 s until it answers something defined. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never: ${what}`);
}

/** The backend pids of feeds' LISTEN connections in this database. */
async function listenerPids(): Promise<number[]> {
  const rows = await world.current.db.$queryRaw<{ pid: number; query: string; state: string }[]>`
    SELECT pid, query, state FROM pg_stat_activity
     WHERE datname = current_database() AND application_name = ${listenerApplicationName}`;
  return rows.map((row) => row.pid);
}

/** Waits until exactly one LISTEN connection (other than `except`) is in effect; its pid. */
function listenerBackend(except?: number): Promise<number> {
  return eventually("one feed listens", async () => {
    const rows = await world.current.db.$queryRaw<{ pid: number }[]>`
      SELECT pid FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = ${listenerApplicationName}
         AND query ILIKE 'LISTEN%' AND state = 'idle'`;
    const pids = rows.map((row) => row.pid).filter((pid) => pid !== except);
    return pids.length === 1 ? pids[0] : undefined;
  });
}

/** Waits until the closed feeds of earlier tests have left pg_stat_activity. */
function noListeners(): Promise<true> {
  return eventually("no feed listens", async () =>
    (await listenerPids()).length === 0 ? true : undefined,
  );
}

describe("LeaseEventFeed over LISTEN/NOTIFY", () => {
  it("wakes a subscriber waiting for a group's first lease, then on every change", async () => {
    const s = await seedSession(world.current.db);
    const sub = collect(newFeed({ mode: "listen", pollIntervalMs: 60_000 }), s);
    await listenerBackend();
    await sub.started();
    await spawn(s);
    await sub.until((items) => items.some((item) => item.kind === "generations"));
    expect(sub.transitions()).toEqual(["created", "spawn"]);
    expect(sub.items.find((item) => item.kind === "generations")).toMatchObject({
      workspaceGeneration: 0,
      archiveGeneration: null,
    });
    const events = eventsOf(sub.items);
    expect(events[1]).toMatchObject({ fromState: "cold", toState: "warming", epochAfter: 0 });
    expect(events[0]?.id).toBeTypeOf("bigint");
  });

  it("reports a capture's or restore's progress, recorded from any process, as transfer items", async () => {
    const s = await seedSession(world.current.db);
    const lease = await warmLease(world.current, s);
    const sub = collect(newFeed({ mode: "listen", pollIntervalMs: 60_000 }), s);
    await sub.until((items) => items.some((item) => item.kind === "generations"));
    await listenerBackend();
    // Another process's recorder, on its own connection: only the trigger's NOTIFY wakes us.
    const recorderDb = createDbClient({ connectionString: world.current.url, maxConnections: 1 });
    try {
      const record = progressRecorder(recorderDb);
      const figure = {
        operation: "capture",
        leaseId: lease.id,
        transferId: crypto.randomUUID(),
        phase: "capturing",
      } as const;
      record({ ...figure, bytesDone: 0, bytesTotal: undefined });
      record({ ...figure, bytesDone: 4096, bytesTotal: 8192 });
      await record.settled();
      await sub.until((items) => transfers(items).at(-1)?.bytesDone === 4096);
      record({
        operation: "restore",
        leaseId: lease.id,
        transferId: crypto.randomUUID(),
        phase: "hydrating",
        bytesDone: 10,
        bytesTotal: 10,
      });
      await record.settled();
      await sub.until((items) => transfers(items).at(-1)?.operation === "restore");
    } finally {
      await recorderDb.$disconnect();
    }
    expect(transfers(sub.items).at(-1)).toMatchObject({
      phase: "hydrating",
      bytesDone: 10,
      bytesTotal: 10,
    });
    // One row per lease, overwritten: a snapshot, never a log.
    expect(await world.current.db.archiveProgress.count({ where: { leaseId: lease.id } })).toBe(1);
    const capture = transfers(sub.items).find((item) => item.bytesDone === 4096);
    expect(capture).toMatchObject({ operation: "capture", phase: "capturing", bytesTotal: 8192 });
    expect(sub.transitions()).toEqual([]);
  });

  it("reports a generation advance, which is no lease event, as its own item", async () => {
    const s = await seedSession(world.current.db);
    const lease = await warmLease(world.current, s);
    const sub = collect(newFeed({ mode: "listen", pollIntervalMs: 60_000 }), s);
    await sub.until((items) => items.some((item) => item.kind === "generations"));
    await listenerBackend();
    const admitted = await world.current.admissions.admit({
      workspaceId: s.workspaceId,
      leaseId: lease.id,
      sessionId: s.sessionId,
      expectedEpoch: lease.epoch,
      instanceId: "box-1",
      holderKind: "turn",
      holderId: "turn-attempt:first",
      routeTargetId: null,
      routeEpoch: 0,
      operation: "fs.write",
    });
    expect(admitted).toMatchObject({ admitted: true, generation: 1 });
    await sub.until((items) => items.filter((item) => item.kind === "generations").length === 2);
    expect(sub.items.at(-1)).toMatchObject({ kind: "generations", workspaceGeneration: 1 });
    // A live tail: the history before the subscription (created, spawn, commit) is not replayed.
    expect(sub.transitions()).toEqual([]);
  });

  it("resumes after an id with only the later events", async () => {
    const s = await seedSession(world.current.db);
    const lease = await warmLease(world.current, s);
    const history = await world.current.db.leaseEvent.findMany({
      where: { leaseId: lease.id },
      orderBy: { id: "asc" },
    });
    const created = history.find((row) => row.transition === "created");
    if (created === undefined) throw new Error("no created event");
    const sub = collect(newFeed({ mode: "listen", pollIntervalMs: 60_000 }), s, created.id);
    await sub.until(() => sub.transitions().length === 2);
    expect(sub.transitions()).toEqual(["spawn", "commit_warm"]);
    expect(eventsOf(sub.items).every((event) => event.id > created.id)).toBe(true);
  });

  it("reconnects after losing its connection and re-reads what the outage hid", async () => {
    const errors: unknown[] = [];
    const feed = newFeed({
      mode: "listen",
      pollIntervalMs: 60_000,
      reconnect: { minMs: 20, maxMs: 100 },
      onListenError: (error) => errors.push(error),
    });
    const s = await seedSession(world.current.db);
    const sub = collect(feed, s);
    const pid = await listenerBackend();
    await sub.started();
    await world.current.db.$queryRaw`SELECT pg_terminate_backend(${pid}::int)`;
    await spawn(s);
    await sub.until(() => sub.transitions().join() === "created,spawn");
    expect(errors.length).toBeGreaterThan(0);
    expect(await listenerBackend(pid)).not.toBe(pid);
  });

  it("ends a subscriber when its signal aborts or the feed closes, and forgets it", async () => {
    const feed = newFeed({ mode: "listen", pollIntervalMs: 60_000 });
    const s = await seedSession(world.current.db);
    const first = collect(feed, s);
    const second = collect(feed, s);
    await listenerBackend();
    await second.started();
    await spawn(s);
    await first.until(() => first.transitions().length === 2);
    await expect.poll(() => feed.subscribers).toBe(2);
    first.abort.abort();
    await first.done;
    expect(feed.subscribers).toBe(1);
    await feed.close();
    await second.done;
    expect(feed.subscribers).toBe(0);
  });

  it("uses one LISTEN connection for every subscriber of the process", async () => {
    await noListeners();
    const feed = newFeed({ mode: "auto", pollIntervalMs: 60_000 });
    const sessions = await Promise.all([1, 2, 3].map(() => seedSession(world.current.db)));
    const subs = sessions.map((s) => collect(feed, s));
    await listenerBackend();
    await subs.at(-1)?.started();
    await Promise.all(sessions.map((s) => spawn(s)));
    for (const sub of subs) await sub.until(() => sub.transitions().length === 2);
    expect(await listenerPids()).toHaveLength(1);
  });
});

describe("a session's route (hot-swap)", () => {
  /** Moves the pointer as a swap does: a new epoch (its trigger notifies, at commit). */
  const move = (s: SeededSession, activeEpoch: number) =>
    world.current.db.session.update({ where: { id: s.sessionId }, data: { activeEpoch } });

  for (const mode of ["listen", "poll"] as const) {
    it(`routeMoved resolves once the pointer leaves the epoch, and the feed sends each move (${mode})`, async () => {
      const s = await seedSession(world.current.db);
      // Listening, only the trigger's NOTIFY can deliver within the test; polling, the timer.
      const feed = newFeed({ mode, pollIntervalMs: mode === "listen" ? 60_000 : 50 });
      const sub = collect(feed, s);
      const scope = { workspaceId: s.workspaceId, sessionId: s.sessionId };
      const stop = new AbortController();
      aborts.push(stop);
      const moved = feed.routeMoved({ ...scope, activeEpoch: 0, signal: stop.signal });
      if (mode === "listen") await listenerBackend();
      await sub.started();
      await move(s, 1);
      expect(await moved).toEqual({
        activeEpoch: 1,
        routedTo: { kind: "group", id: s.sandboxGroupId },
      });
      await sub.until((items) => items.filter((item) => item.kind === "route").length === 2);
      expect(sub.items.filter((item) => item.kind === "route").map((r) => r.activeEpoch)).toEqual([
        0, 1,
      ]);
      // Already moved: at once. Aborted: null, with nothing left waiting.
      expect(
        await feed.routeMoved({ ...scope, activeEpoch: 0, signal: stop.signal }),
      ).toMatchObject({
        activeEpoch: 1,
      });
      const waiting = feed.routeMoved({ ...scope, activeEpoch: 1, signal: stop.signal });
      stop.abort();
      expect(await waiting).toBeNull();
    });
  }
});

describe("LeaseEventFeed by polling (the embedded database's path)", () => {
  it("delivers every change without LISTEN", async () => {
    await noListeners();
    const s = await seedSession(world.current.db);
    const sub = collect(newFeed({ mode: "poll", pollIntervalMs: 50 }), s);
    await sub.started();
    await spawn(s);
    await sub.until(() => sub.transitions().join() === "created,spawn");
    expect(await listenerPids()).toEqual([]);
  });

  it("reads a backlog larger than one page in order", async () => {
    const s = await seedSession(world.current.db);
    await spawn(s);
    // 150 rotations' worth of events, written straight into the log (one statement).
    const client = new pg.Client({ connectionString: world.current.url });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO lease_events (lease_id, workspace_id, transition, from_state, to_state, epoch_before, epoch_after, actor, at)
         SELECT l.id, l.workspace_id, 'test_' || g, 'warming', 'warming', 0, 0, 'test', now()
           FROM sandbox_leases l, generate_series(1, 150) g WHERE l.sandbox_group_id = $1::uuid`,
        [s.sandboxGroupId],
      );
    } finally {
      await client.end();
    }
    const sub = collect(newFeed({ mode: "poll", pollIntervalMs: 50 }), s, 0n);
    await sub.until(() => sub.transitions().length === 152);
    const ids = eventsOf(sub.items).map((event) => event.id);
    expect([...ids].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids);
    expect(sub.transitions().at(-1)).toBe("test_150");
  });
});
