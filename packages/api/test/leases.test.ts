import { beforeAll, describe, expect, it } from "vitest";
import { codeOf, useApiSuite } from "./support/apiSuite.ts";
import { callerAs } from "./support/testApi.ts";
import { rowHashes, seedWorkspace, type SeededWorkspace } from "./support/world.ts";

// The leases router over the real API and a real database: turn and viewer holders, the
// dashboard's view and timeline, and what an outsider gets (nothing, and nothing changes).

const suite = useApiSuite();
let victim: SeededWorkspace;
let outsider: SeededWorkspace;

beforeAll(async () => {
  [victim, outsider] = await Promise.all([
    seedWorkspace(suite.api, suite.db, "leases"),
    seedWorkspace(suite.api, suite.db, "stranger"),
  ]);
}, 60_000);

/** The owner's caller and a new session of the victim's that has never had a lease. */
async function freshSession() {
  const owner = await callerAs(suite.api, { cookie: victim.owner.cookie });
  const session = await owner.sessions.create({ workspaceId: victim.workspaceId, title: "t" });
  return { owner, on: { workspaceId: victim.workspaceId, sessionId: session.id } };
}

async function holderIds(leaseId: string): Promise<string[]> {
  const rows = await suite.db.leaseHolder.findMany({
    where: { leaseId },
    orderBy: { holderId: "asc" },
  });
  return rows.map((row) => row.holderId);
}

describe("turn holders", () => {
  it("acquire, heartbeat and release round trip; one spawner among concurrent turns", async () => {
    const { owner, on } = await freshSession();
    expect(await owner.leases.get(on)).toBeNull();

    const arrivals = await Promise.all(
      Array.from({ length: 6 }, (_, i) => owner.leases.acquireTurn({ ...on, turnId: `t${i}` })),
    );
    expect(arrivals.filter((a) => a.role === "spawner")).toHaveLength(1);
    expect(arrivals.filter((a) => a.role === "attached")).toHaveLength(5);
    // The spawner's answer comes once its box is warm (epoch 0 → 1): nothing is left warming.
    const first = arrivals.find((a) => a.role === "spawner");
    if (first === undefined) throw new Error("no spawner");
    expect(first).toMatchObject({ liveness: "warm", epoch: 1, reason: null });
    expect(new Set(arrivals.map((a) => a.leaseId)).size).toBe(1);
    expect(await holderIds(first.leaseId)).toEqual([
      "turn:t0",
      "turn:t1",
      "turn:t2",
      "turn:t3",
      "turn:t4",
      "turn:t5",
    ]);

    expect(await owner.leases.heartbeatTurn({ ...on, turnId: "t0", expectedEpoch: 1 })).toEqual({
      alive: true,
      epoch: 1,
      reason: null,
    });
    for (let i = 0; i < 6; i += 1)
      expect(await owner.leases.releaseTurn({ ...on, turnId: `t${i}` })).toEqual({
        released: true,
      });
    expect(await owner.leases.releaseTurn({ ...on, turnId: "t0" })).toEqual({ released: false });
    expect(await holderIds(first.leaseId)).toEqual([]);
    expect(await owner.leases.get(on)).toMatchObject({ holderCount: 0, turnHolders: 0 });
  });

  it("a heartbeat at a stale epoch answers alive:false and changes nothing", async () => {
    const { owner, on } = await freshSession();
    const spawned = await owner.leases.acquireTurn({ ...on, turnId: "turn-a" });
    expect(spawned.role).toBe("spawner");

    const before = await rowHashes(suite.db);
    expect(await owner.leases.heartbeatTurn({ ...on, turnId: "turn-a", expectedEpoch: 0 })).toEqual(
      {
        alive: false,
        epoch: 1,
        reason: "stale_epoch",
      },
    );
    expect(await rowHashes(suite.db)).toEqual(before);
    expect(
      await owner.leases.heartbeatTurn({ ...on, turnId: "turn-a", expectedEpoch: 1 }),
    ).toMatchObject({
      alive: true,
      epoch: 1,
    });
    // A turn dispatched against the old box is not attached to the new one.
    expect(
      await owner.leases.acquireTurn({ ...on, turnId: "turn-b", expectedEpoch: 0 }),
    ).toMatchObject({
      role: "fenced",
      reason: "superseded",
      epoch: 1,
    });
    // A holder that never arrived is not alive either.
    expect(await owner.leases.heartbeatTurn({ ...on, turnId: "nobody", expectedEpoch: 1 })).toEqual(
      {
        alive: false,
        epoch: 1,
        reason: "holder_gone",
      },
    );
  });
});

describe("viewer holders and the dashboard view", () => {
  it("attach, heartbeat (stale epoch: alive:false) and detach, as a plain member by token", async () => {
    const { owner, on } = await freshSession();
    const spawned = await owner.leases.acquireTurn({ ...on, turnId: "agent" });

    const member = await callerAs(suite.api, { token: victim.memberToken });
    expect(await member.leases.attachViewer({ ...on, viewerId: "tab-1" })).toMatchObject({
      role: "attached",
      liveness: "warm",
      epoch: 1,
    });
    expect(await member.leases.get(on)).toMatchObject({
      leaseId: spawned.leaseId,
      liveness: "warm",
      epoch: 1,
      holderCount: 2,
      turnHolders: 1,
      viewerHolders: 1,
      workspaceGeneration: 0,
      archiveGeneration: null,
      archiveComplete: false,
      selectedRevision: null,
      providerStatus: "exists",
    });
    expect(
      await member.leases.heartbeatViewer({ ...on, viewerId: "tab-1", expectedEpoch: 1 }),
    ).toEqual({
      alive: true,
      epoch: 1,
      reason: null,
    });
    expect(
      await member.leases.heartbeatViewer({ ...on, viewerId: "tab-1", expectedEpoch: 0 }),
    ).toMatchObject({
      alive: false,
      reason: "stale_epoch",
    });
    expect(await member.leases.detachViewer({ ...on, viewerId: "tab-1" })).toEqual({
      released: true,
    });
    expect(await member.leases.get(on)).toMatchObject({ holderCount: 1, viewerHolders: 0 });
    expect(await holderIds(spawned.leaseId)).toEqual(["turn:agent"]);
  });

  it("the timeline pages the lease's events oldest first by id cursor", async () => {
    const { owner, on } = await freshSession();
    expect(await owner.leases.timeline({ ...on, limit: 10 })).toEqual({
      events: [],
      nextAfterId: null,
      swaps: [],
    });
    expect((await owner.leases.acquireTurn({ ...on, turnId: "agent" })).role).toBe("spawner");
    await owner.leases.releaseTurn({ ...on, turnId: "agent" });

    const page1 = await owner.leases.timeline({ ...on, limit: 2 });
    expect(page1.events.map((e) => e.transition)).toEqual(["created", "spawn"]);
    expect(page1.nextAfterId).toBe(page1.events[1]?.id);
    expect(typeof page1.nextAfterId).toBe("bigint");
    const page2 = await owner.leases.timeline({
      ...on,
      afterId: page1.nextAfterId ?? 0n,
      limit: 2,
    });
    expect(
      page2.events.map((e) => [e.transition, e.fromState, e.toState, e.epochBefore, e.epochAfter]),
    ).toEqual([
      ["commit_warm", "warming", "warm", 0, 1],
      ["drain", "warm", "draining", 1, 1],
    ]);
    const page3 = await owner.leases.timeline({
      ...on,
      afterId: String(page2.events[1]?.id),
      limit: 2,
    });
    expect(page3).toEqual({ events: [], nextAfterId: null, swaps: [] });
    expect(page1.events[0]?.actor).toBe("turn:turn:agent");
  });

  it("refuses bad input with BAD_REQUEST before anything is written", async () => {
    const { owner, on } = await freshSession();
    const before = await rowHashes(suite.db);
    for (const call of [
      () => owner.leases.acquireTurn({ ...on, turnId: "x".repeat(129) }),
      () => owner.leases.acquireTurn({ ...on, turnId: "has space" }),
      () => owner.leases.acquireTurn({ ...on, turnId: "t", expectedEpoch: -1 }),
      () => owner.leases.heartbeatViewer({ ...on, viewerId: "", expectedEpoch: 0 }),
      () => owner.leases.timeline({ ...on, limit: 201 }),
      () => owner.leases.timeline({ ...on, afterId: "12a" }),
    ])
      expect(await codeOf(call())).toBe("BAD_REQUEST");
    expect(await rowHashes(suite.db)).toEqual(before);
  });
});

describe("an outsider", () => {
  it("gets NOT_FOUND for every lease call on another workspace's session, changing nothing", async () => {
    const { owner, on } = await freshSession();
    const spawned = await owner.leases.acquireTurn({ ...on, turnId: "agent" });
    const before = await rowHashes(suite.db);
    for (const credential of [{ cookie: outsider.owner.cookie }, { token: outsider.adminToken }]) {
      const stranger = await callerAs(suite.api, credential);
      // Both the victim's workspace id and the stranger's own, with the victim's session.
      for (const workspaceId of [victim.workspaceId, outsider.workspaceId]) {
        const at = { workspaceId, sessionId: on.sessionId };
        const calls = [
          () => stranger.leases.acquireTurn({ ...at, turnId: "agent" }),
          () =>
            stranger.leases.heartbeatTurn({ ...at, turnId: "agent", expectedEpoch: spawned.epoch }),
          () => stranger.leases.releaseTurn({ ...at, turnId: "agent" }),
          () => stranger.leases.attachViewer({ ...at, viewerId: "v" }),
          () => stranger.leases.heartbeatViewer({ ...at, viewerId: "v", expectedEpoch: 0 }),
          () => stranger.leases.detachViewer({ ...at, viewerId: "v" }),
          () => stranger.leases.get(at),
          () => stranger.leases.timeline({ ...at, limit: 5 }),
        ];
        for (const call of calls) expect(await codeOf(call())).toBe("NOT_FOUND");
      }
    }
    expect(await rowHashes(suite.db)).toEqual(before);
    expect(await holderIds(spawned.leaseId)).toEqual(["turn:agent"]);
  });
});
