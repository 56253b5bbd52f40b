import { afterEach, describe, expect, it } from "vitest";
import { LeaseEventFeed } from "../events/leaseEventFeed.ts";
import { listenerApplicationName } from "../events/notificationListener.ts";
import { BoxAccess } from "../services/boxAccess.ts";
import type { LeaseWakeups } from "../services/leaseWakeups.ts";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import { seedSession, useLeaseWorld } from "./leaseFixture.ts";
import { useLocalBackend } from "./spawnerFixture.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";

// Issue 33, item 7: a herd of calls on a cold session. One call spawns; the rest wait for it.
// They must share one watch of the lease (not one re-read loop each, which crowded the spawner's
// statements out of the pool: 4–8 s for 50 calls against 0.9 s for one), and be woken by the
// warm commit's NOTIFY rather than by a timer.

const world = useLeaseWorld();
const local = useLocalBackend();
const feeds: LeaseEventFeed[] = [];

afterEach(async () => {
  await Promise.all(feeds.splice(0).map((feed) => feed.close()));
});

/** The real feed, counting how many watches box access opens on it. */
function countingWakeups(feed: LeaseEventFeed): LeaseWakeups & { readonly watches: string[] } {
  const watches: string[] = [];
  return {
    watches,
    watchLease(leaseId) {
      watches.push(leaseId);
      return feed.watchLease(leaseId);
    },
  };
}

describe("a herd on a cold session", () => {
  it("50 concurrent reads share one watch, are woken by NOTIFY, and get exactly one box", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const resources = { db: w.db, clock: w.clock, config: w.config };
    const feed = new LeaseEventFeed({ db: w.db, connectionString: w.url, mode: "listen" });
    feeds.push(feed);
    const wakeups = countingWakeups(feed);
    const access = new BoxAccess({
      resources,
      backends: BackendRegistry.of(local.backend),
      spawner: new SpawnerSystem({
        resources,
        backends: BackendRegistry.of(local.backend),
        readinessTimeoutMs: 20_000,
      }),
      wakeups,
      // Far longer than this test may run: only a NOTIFY can wake the waiters in time.
      pollMs: 600_000,
    });

    const listed = await Promise.all(
      Array.from({ length: 50 }, () =>
        access.run(
          {
            ...s,
            requestId: crypto.randomUUID(),
            operation: { name: "list", writes: false },
          },
          ({ box }) => box.list({ path: "." }),
        ),
      ),
    );

    expect(listed).toHaveLength(50);
    const lease = await w.leases.readByGroup(s);
    expect(lease?.liveness).toBe("warm");
    // Every waiter waited on the one warming state: one watch between them, not 49.
    expect(wakeups.watches).toEqual([lease?.id]);
    const boxes = (await local.backend.inventory()).filter(
      (box) => box.metadata.leaseId === lease?.id,
    );
    expect(boxes).toHaveLength(1);
    await access.settled();
  }, 60_000);

  it("a watch is woken by the lease's change in another connection, not by its timer", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const feed = new LeaseEventFeed({ db: w.db, connectionString: w.url, mode: "listen" });
    feeds.push(feed);
    const arrived = await w.leases.acquire({
      ...s,
      kind: "viewer",
      holderId: "viewer:herd",
      expectedEpoch: null,
    });
    expect(arrived.role).toBe("spawner");
    using wakeup = await feed.watchLease(arrived.lease.id);
    // Until LISTEN is in effect the feed falls back to the poll interval; wait for it.
    await expect
      .poll(
        async () =>
          (
            await w.db.$queryRaw<{ query: string }[]>`
              SELECT query FROM pg_stat_activity
               WHERE datname = current_database() AND application_name = ${listenerApplicationName}`
          ).some((row) => row.query.startsWith("LISTEN")),
        { timeout: 10_000 },
      )
      .toBe(true);
    const woken = wakeup.next({ maxWaitMs: 600_000, pollMs: 600_000 });
    // The spawner gives up: warming → cold is a lease event, which NOTIFYs at commit.
    const failed = await w.warming.failWarming({
      workspaceId: s.workspaceId,
      leaseId: arrived.lease.id,
      expectedEpoch: arrived.lease.epoch,
      terminated: true,
      actor: "test",
      reason: "test",
    });
    expect(failed.outcome).not.toBe("lost");
    await woken;
  }, 20_000);
});
