import pg from "pg";
import { describe, expect, it } from "vitest";
import { LeaseError } from "../lease/errors.ts";
import { LeaseSystem } from "../lease/leaseSystem.ts";
import { ManualClock } from "../testing/manualClock.ts";
import {
  concurrently,
  leaseEvents,
  seedSession,
  seedSiblingSession,
  useLeaseWorld,
} from "./leaseFixture.ts";

const world = useLeaseWorld();
const SECOND = 1_000;

describe("acquire, heartbeat, touch, release (spec/lease.md §4, §13)", () => {
  it("scenario 1: the epoch reads back as a JS number, so === fences work", async () => {
    const { db, leases } = world.current;
    const s = await seedSession(db);
    const { lease } = await leases.acquire({ ...s, kind: "direct", holderId: "direct:r1" });
    expect(typeof lease.epoch).toBe("number");
    expect(lease.epoch === 0).toBe(true);
  });

  it("scenario 3: 50 concurrent cold acquires elect exactly one spawner; 49 attach; 50 holders", async () => {
    const { db, on } = world.current;
    const s = await seedSession(db);

    const { results, backendPids } = await concurrently(db, { count: 50 }, (tx, i) =>
      on(tx).leases.acquire({ ...s, kind: "viewer", holderId: `viewer-${String(i)}` }),
    );

    expect(backendPids).toBeGreaterThanOrEqual(20);
    expect(results.filter((r) => r.role === "spawner")).toHaveLength(1);
    expect(results.filter((r) => r.role === "attached")).toHaveLength(49);
    const lease = await world.current.leases.readByGroup(s);
    expect(lease).toMatchObject({
      liveness: "warming",
      epoch: 0,
      holderCount: 50,
      viewerHolders: 50,
    });
    expect(await db.leaseHolder.count({ where: { leaseId: lease?.id } })).toBe(50);
    // Exactly two accepted changes: the row was created, and it went cold -> warming once.
    expect((await leaseEvents(db, lease?.id ?? "")).map((e) => e.transition)).toEqual([
      "created",
      "spawn",
    ]);
  });

  it("scenario 4: with SKIP LOCKED an arrival would miss the locked row; the blocking lock sees it", async () => {
    const { db, leases, on, url } = world.current;
    const s = await seedSession(db);
    const first = await leases.acquire({ ...s, kind: "viewer", holderId: "v0" });
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("SELECT 1 FROM sandbox_leases WHERE id = $1 FOR UPDATE", [first.lease.id]);

      // The real acquires queue behind the lock held by another connection...
      const arrivals = concurrently(db, { count: 8 }, (tx, i) =>
        on(tx).leases.acquire({ ...s, kind: "viewer", holderId: `v${String(i + 1)}` }),
      );
      // ...while the counterfactual, arriving at the same time, finds no row at all.
      const skipped = await db.$queryRaw<unknown[]>`
        SELECT id FROM sandbox_leases WHERE workspace_id = ${s.workspaceId}::uuid
           AND sandbox_group_id = ${s.sandboxGroupId}::uuid FOR UPDATE SKIP LOCKED`;
      expect(skipped).toEqual([]);
      expect(await db.leaseHolder.count({ where: { leaseId: first.lease.id } })).toBe(1);

      await locker.query("COMMIT");
      const { results, backendPids } = await arrivals;
      expect(backendPids).toBeGreaterThanOrEqual(2);
      expect(results.map((r) => r.role)).toEqual(Array(8).fill("attached"));
      expect(await db.leaseHolder.count({ where: { leaseId: first.lease.id } })).toBe(9);
    } finally {
      await locker.end();
    }
  });

  it("scenario 5: cold -> warming stamps the warming timeout; a later attach does not shrink it", async () => {
    const { db, leases, clock, config } = world.current;
    const s = await seedSession(db);
    const start = await clock.now();
    const spawn = await leases.acquire({ ...s, kind: "turn", holderId: "turn-attempt:a" });
    expect(spawn.role).toBe("spawner");
    expect(spawn.lease.expiresAt).toEqual(new Date(start.getTime() + config.warmingTimeoutMs));
    expect(spawn.lease.expiresAt.getUTCFullYear()).toBe(2000);

    clock.advance(10 * SECOND);
    const attach = await leases.acquire({ ...s, kind: "viewer", holderId: "v" });
    expect(attach.role).toBe("attached");
    expect(attach.lease.expiresAt).toEqual(spawn.lease.expiresAt);
  });

  it("scenario 9: a heartbeat at a stale epoch answers false and changes nothing; the current epoch extends", async () => {
    const { db, leases, warming, clock, config } = world.current;
    const s = await seedSession(db);
    const spawn = await leases.acquire({ ...s, kind: "turn", holderId: "turn-attempt:t" });
    const fence = { workspaceId: s.workspaceId, leaseId: spawn.lease.id, expectedEpoch: 0 };
    await warming.recordAllocation({ ...fence, allocationId: "alloc-1" });
    await warming.recordCreated({ ...fence, allocationId: "alloc-1", instanceId: "box-1" });
    const commit = await warming.commitWarm({ ...fence, instanceId: "box-1" });
    expect(commit).toMatchObject({ outcome: "committed", lease: { epoch: 1, liveness: "warm" } });
    clock.advance(5 * SECOND);
    const holder = {
      workspaceId: s.workspaceId,
      leaseId: spawn.lease.id,
      kind: "turn",
      holderId: "turn-attempt:t",
    } as const;
    const heldBefore = await db.leaseHolder.findFirstOrThrow({
      where: { leaseId: spawn.lease.id },
    });

    const stale = await leases.heartbeat({ ...holder, expectedEpoch: 0 });
    expect(stale).toMatchObject({ alive: false, reason: "stale_epoch" });
    expect((await leases.readByGroup(s))?.expiresAt).toEqual(commit.lease?.expiresAt);
    expect(
      (await db.leaseHolder.findFirstOrThrow({ where: { leaseId: spawn.lease.id } }))
        .lastHeartbeatAt,
    ).toEqual(heldBefore.lastHeartbeatAt);

    const current = await leases.heartbeat({ ...holder, expectedEpoch: 1 });
    expect(current.alive).toBe(true);
    expect(current.lease?.expiresAt).toEqual(
      new Date((await clock.now()).getTime() + config.leaseTtlMs),
    );
  });

  it("attaches a sibling session of the same group to the same lease", async () => {
    const { db, leases } = world.current;
    const s = await seedSession(db);
    const sibling = await seedSiblingSession(db, s);
    const a = await leases.acquire({ ...s, kind: "viewer", holderId: "v1" });
    const b = await leases.acquire({ ...s, sessionId: sibling, kind: "viewer", holderId: "v2" });
    expect(b).toMatchObject({ role: "attached", lease: { id: a.lease.id, holderCount: 2 } });
  });

  it("moves the last holder's release of a warm lease to draining with the idle grace", async () => {
    const { db, leases, warming, clock, config } = world.current;
    const s = await seedSession(db);
    const spawn = await leases.acquire({ ...s, kind: "direct", holderId: "direct:r1" });
    const fence = { workspaceId: s.workspaceId, leaseId: spawn.lease.id, expectedEpoch: 0 };
    await warming.recordAllocation({ ...fence, allocationId: "a" });
    await warming.recordCreated({ ...fence, allocationId: "a", instanceId: "box" });
    await warming.commitWarm({ ...fence, instanceId: "box" });
    await leases.acquire({ ...s, kind: "viewer", holderId: "v" });
    const ref = { workspaceId: s.workspaceId, leaseId: spawn.lease.id };

    const first = await leases.release({ ...ref, kind: "direct", holderId: "direct:r1" });
    expect(first).toMatchObject({ released: true, lease: { liveness: "warm", holderCount: 1 } });
    const last = await leases.release({ ...ref, kind: "viewer", holderId: "v" });
    const now = await clock.now();
    expect(last).toMatchObject({
      released: true,
      lease: { liveness: "draining", holderCount: 0, epoch: 1 },
    });
    expect(last.lease?.expiresAt).toEqual(new Date(now.getTime() + config.idleGraceMs));

    const again = await leases.release({ ...ref, kind: "viewer", holderId: "v" });
    expect(again).toMatchObject({ released: false, lease: { liveness: "draining" } });
  });

  it("releases during warming change only the counts: the spawner still commits", async () => {
    const { db, leases } = world.current;
    const s = await seedSession(db);
    const spawn = await leases.acquire({ ...s, kind: "direct", holderId: "direct:only" });
    const out = await leases.release({
      workspaceId: s.workspaceId,
      leaseId: spawn.lease.id,
      kind: "direct",
      holderId: "direct:only",
    });
    expect(out.lease).toMatchObject({ liveness: "warming", holderCount: 0 });
  });

  it("touch refreshes the holder without an epoch and reports a missing holder", async () => {
    const { db, leases, clock } = world.current;
    const s = await seedSession(db);
    const spawn = await leases.acquire({ ...s, kind: "turn", holderId: "turn-attempt:w" });
    clock.advance(7 * SECOND);
    const ref = {
      workspaceId: s.workspaceId,
      leaseId: spawn.lease.id,
      kind: "turn",
      holderId: "turn-attempt:w",
    } as const;
    expect(await leases.touch(ref)).toBe(true);
    const holder = await db.leaseHolder.findFirstOrThrow({ where: { leaseId: spawn.lease.id } });
    expect(holder.lastHeartbeatAt).toEqual(await clock.now());
    expect(await leases.touch({ ...ref, holderId: "turn-attempt:other" })).toBe(false);
  });
});

describe("holder counts", () => {
  it("equal the holder rows after 40 concurrent acquires, repeats and releases", async () => {
    const { db, leases, on } = world.current;
    const s = await seedSession(db);
    const { lease } = await leases.acquire({ ...s, kind: "turn", holderId: "turn-attempt:keeper" });
    const kinds = ["viewer", "direct", "turn"] as const;

    const { backendPids } = await concurrently(db, { count: 40 }, async (tx, i) => {
      const system = on(tx).leases;
      const kind = kinds[i % 3] ?? "viewer";
      const holderId = `h-${String(i % 20)}`; // every holder arrives twice
      if (i % 4 === 3) {
        await system.release({ workspaceId: s.workspaceId, leaseId: lease.id, kind, holderId });
      } else {
        await system.acquire({ ...s, kind, holderId });
      }
    });

    expect(backendPids).toBeGreaterThanOrEqual(10);
    const rows = await db.leaseHolder.groupBy({
      by: ["kind"],
      where: { leaseId: lease.id },
      _count: true,
    });
    const count = (kind: string) => rows.find((row) => row.kind === kind)?._count ?? 0;
    const after = await leases.readByGroup(s);
    expect(after).toMatchObject({
      holderCount: rows.reduce((sum, row) => sum + row._count, 0),
      turnHolders: count("turn"),
      viewerHolders: count("viewer"),
    });
  });
});

describe("execution profiles", () => {
  it("refuses another profile while others hold the lease, writing nothing", async () => {
    const { db, leases } = world.current;
    const s = await seedSession(db);
    const spawn = await leases.acquire({
      ...s,
      kind: "viewer",
      holderId: "v1",
      profile: "image:a",
    });
    const before = await leases.readByGroup(s);
    const eventsBefore = await leaseEvents(db, spawn.lease.id);

    const refusal = leases.acquire({ ...s, kind: "viewer", holderId: "v2", profile: "image:b" });

    await expect(refusal).rejects.toBeInstanceOf(LeaseError);
    await expect(refusal).rejects.toMatchObject({
      code: "profile_conflict",
      details: { running: "image:a" },
    });
    expect(await leases.readByGroup(s)).toEqual(before);
    expect(await leaseEvents(db, spawn.lease.id)).toEqual(eventsBefore);
    expect(await db.leaseHolder.count({ where: { leaseId: spawn.lease.id } })).toBe(1);
  });

  it("never conflicts on a null profile, either side", async () => {
    const { db, leases } = world.current;
    const s = await seedSession(db);
    await leases.acquire({ ...s, kind: "viewer", holderId: "v1", profile: "image:a" });
    expect(
      (await leases.acquire({ ...s, kind: "viewer", holderId: "v2", profile: null })).role,
    ).toBe("attached");
    const t = await seedSession(db);
    await leases.acquire({ ...t, kind: "viewer", holderId: "v1" });
    expect(
      (await leases.acquire({ ...t, kind: "viewer", holderId: "v2", profile: "image:b" })).role,
    ).toBe("attached");
  });

  it("with no other holder, fences the caller with rotation_in_progress and makes the box drainable", async () => {
    const { db, leases, warming, clock } = world.current;
    const s = await seedSession(db);
    const spawn = await leases.acquire({
      ...s,
      kind: "viewer",
      holderId: "v1",
      profile: "image:a",
    });
    const fence = { workspaceId: s.workspaceId, leaseId: spawn.lease.id, expectedEpoch: 0 };
    await warming.recordAllocation({ ...fence, allocationId: "a" });
    await warming.recordCreated({ ...fence, allocationId: "a", instanceId: "box-a" });
    await warming.commitWarm({ ...fence, instanceId: "box-a" });

    const rotation = await leases.acquire({
      ...s,
      kind: "viewer",
      holderId: "v1",
      profile: "image:b",
    });

    expect(rotation).toMatchObject({
      role: "fenced",
      reason: "rotation_in_progress",
      lease: { liveness: "draining", holderCount: 0, instanceId: "box-a", epoch: 1 },
    });
    expect(rotation.lease.expiresAt.getTime()).toBeLessThanOrEqual((await clock.now()).getTime());
    expect(
      (
        await world.current.sweeps.claimDrainable({
          claimId: crypto.randomUUID(),
          claimTtlMs: 60_000,
        })
      ).map((l) => l.id),
    ).toContain(spawn.lease.id);
  });
});

describe("bad input", () => {
  it.each([
    ["an unknown holder kind", { kind: "janitor" }, /kind/],
    ["a process holder", { kind: "process" }, /process holders/],
    ["an empty holder id", { holderId: "  " }, /holderId: must not be empty/],
    ["a workspace id that is not a UUID", { workspaceId: "ws-1" }, /workspaceId: must be a UUID/],
  ])("refuses %s with invalid_input before any write", async (_name, change, message) => {
    const { db, leases } = world.current;
    const s = await seedSession(db);
    const refusal = leases.acquire({ ...s, kind: "viewer", holderId: "v", ...change } as never);
    await expect(refusal).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringMatching(message) as unknown,
    });
    expect(await db.sandboxLease.count({ where: { workspaceId: s.workspaceId } })).toBe(0);
  });

  it("refuses a session of another workspace as session_not_found, creating no lease", async () => {
    const { db, leases } = world.current;
    const mine = await seedSession(db);
    const theirs = await seedSession(db);
    const refusal = leases.acquire({
      workspaceId: mine.workspaceId,
      sessionId: theirs.sessionId,
      kind: "viewer",
      holderId: "v",
    });
    await expect(refusal).rejects.toMatchObject({ code: "session_not_found" });
    expect(
      await db.sandboxLease.count({
        where: { workspaceId: { in: [mine.workspaceId, theirs.workspaceId] } },
      }),
    ).toBe(0);
  });

  it.each([500, 25 * 60 * 60 * 1000])(
    "refuses a TTL of %i ms (outside 1 s–24 h) when the system is built",
    (ttl) => {
      const { db } = world.current;
      expect(
        () =>
          new LeaseSystem({
            db,
            clock: new ManualClock(),
            config: {
              leaseTtlMs: ttl,
              warmingTimeoutMs: 600_000,
              idleGraceMs: 900_000,
              viewerTtlMs: 90_000,
            },
          }),
      ).toThrow(/leaseTtlMs: must be (at least 1 s|at most 24 h)/);
    },
  );
});

describe("the event log", () => {
  it("writes exactly one event per accepted change and none for attaches, heartbeats or refusals", async () => {
    const { db, leases, warming, clock } = world.current;
    const s = await seedSession(db);
    const spawn = await leases.acquire({ ...s, kind: "turn", holderId: "turn-attempt:1" });
    const ref = { workspaceId: s.workspaceId, leaseId: spawn.lease.id };
    await leases.acquire({ ...s, kind: "viewer", holderId: "v" });
    await warming.recordAllocation({ ...ref, expectedEpoch: 0, allocationId: "a" });
    await warming.recordCreated({ ...ref, expectedEpoch: 0, allocationId: "a", instanceId: "box" });
    await warming.commitWarm({ ...ref, expectedEpoch: 0, instanceId: "box" });
    await warming.commitWarm({ ...ref, expectedEpoch: 0, instanceId: "box" }); // stale: no event
    await leases.heartbeat({ ...ref, kind: "viewer", holderId: "v", expectedEpoch: 1 });
    await leases.release({ ...ref, kind: "viewer", holderId: "v" });
    await leases.release({ ...ref, kind: "turn", holderId: "turn-attempt:1" });
    clock.advance(SECOND);
    await leases.acquire({ ...s, kind: "direct", holderId: "direct:x" });

    const events = await leaseEvents(db, spawn.lease.id);
    expect(
      events.map((e) => [e.transition, e.fromState, e.toState, e.epochBefore, e.epochAfter]),
    ).toEqual([
      ["created", null, "cold", null, 0],
      ["spawn", "cold", "warming", 0, 0],
      ["commit_warm", "warming", "warm", 0, 1],
      ["drain", "warm", "draining", 1, 1],
      ["rearm", "draining", "warm", 1, 1],
    ]);
    expect(events.every((e) => e.at.getUTCFullYear() === 2000)).toBe(true);
  });
});
