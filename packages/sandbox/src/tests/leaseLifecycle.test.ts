import { describe, expect, it } from "vitest";
import {
  concurrently,
  leaseEvents,
  seedSession,
  useLeaseWorld,
  warmLease,
  releaseWarmHolder,
} from "./leaseFixture.ts";

const world = useLeaseWorld();
const SECOND = 1_000;
const MINUTE = 60 * SECOND;

describe("the spawner's path (spec/lease.md §5, §13)", () => {
  it("scenario 6 (without rematerialization): a pre-create warming expiry goes cold at epoch 1; the late spawner is fenced", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const first = await w.leases.acquire({ ...s, kind: "turn", holderId: "turn-attempt:a" });
    const ref = { workspaceId: s.workspaceId, leaseId: first.lease.id };
    await w.warming.recordAllocation({ ...ref, expectedEpoch: 0, allocationId: "alloc-a" });

    w.clock.advance(w.config.warmingTimeoutMs + SECOND);
    const expired = await w.sweeps.expireWarming();
    expect(expired).toMatchObject([
      {
        to: "cold",
        lease: { id: first.lease.id, liveness: "cold", epoch: 1, allocationId: "alloc-a" },
      },
    ]);

    const successor = await w.leases.acquire({ ...s, kind: "turn", holderId: "turn-attempt:b" });
    expect(successor).toMatchObject({ role: "spawner", lease: { epoch: 1 } });
    const late = await w.warming.recordCreated({
      ...ref,
      expectedEpoch: 0,
      allocationId: "alloc-a",
      instanceId: "box-late",
    });
    expect(late).toMatchObject({ outcome: "lost", reason: "stale_epoch" });
    const wrongAllocation = await w.warming.recordCreated({
      ...ref,
      expectedEpoch: 1,
      allocationId: "alloc-z",
      instanceId: "box-b",
    });
    expect(wrongAllocation).toMatchObject({ outcome: "lost", reason: "allocation_mismatch" });
    const exact = await w.warming.recordCreated({
      ...ref,
      expectedEpoch: 1,
      allocationId: "alloc-a",
      instanceId: "box-b",
    });
    expect(exact).toMatchObject({ outcome: "recorded", lease: { instanceId: "box-b", epoch: 1 } });
  });

  it("scenario 7: fail-warming goes cold at epoch 1; every late epoch-0 call is a no-op; the successor commits at epoch 2", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const first = await w.leases.acquire({ ...s, kind: "turn", holderId: "turn-attempt:a" });
    const ref = { workspaceId: s.workspaceId, leaseId: first.lease.id };
    await w.warming.recordAllocation({ ...ref, expectedEpoch: 0, allocationId: "alloc-a" });
    const failed = await w.warming.failWarming({
      ...ref,
      expectedEpoch: 0,
      terminated: true,
      reason: "create_failed",
    });
    expect(failed).toMatchObject({
      outcome: "failed",
      lease: { liveness: "cold", epoch: 1, allocationId: null },
    });

    const successor = await w.leases.acquire({ ...s, kind: "turn", holderId: "turn-attempt:b" });
    expect(successor.role).toBe("spawner");
    const before = await w.leases.readByGroup(s);
    for (const late of [
      w.warming.recordAllocation({ ...ref, expectedEpoch: 0, allocationId: "alloc-late" }),
      w.warming.recordCreated({
        ...ref,
        expectedEpoch: 0,
        allocationId: "alloc-a",
        instanceId: "box-late",
      }),
      w.warming.commitWarm({ ...ref, expectedEpoch: 0, instanceId: "box-late" }),
      w.warming.failWarming({ ...ref, expectedEpoch: 0, terminated: false }),
    ]) {
      expect(await late).toMatchObject({ outcome: "lost", reason: "stale_epoch" });
    }
    expect(await w.leases.readByGroup(s)).toEqual(before);

    await w.warming.recordAllocation({ ...ref, expectedEpoch: 1, allocationId: "alloc-b" });
    await w.warming.recordCreated({
      ...ref,
      expectedEpoch: 1,
      allocationId: "alloc-b",
      instanceId: "box-b",
    });
    const commit = await w.warming.commitWarm({ ...ref, expectedEpoch: 1, instanceId: "box-b" });
    expect(commit).toMatchObject({
      outcome: "committed",
      lease: { liveness: "warm", epoch: 2, instanceId: "box-b" },
    });
    const lateLoss = await w.warming.markInstanceLost({
      ...ref,
      expectedEpoch: 1,
      instanceId: "box-a",
      actor: "viewer:v",
    });
    expect(lateLoss).toMatchObject({
      outcome: "lost",
      reason: "stale_epoch",
      lease: { liveness: "warm", epoch: 2 },
    });
  });

  it("scenario 8: a post-create warming expiry drains at epoch+1, immediately drainable; arrivals are fenced; late calls are no-ops", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const first = await w.leases.acquire({ ...s, kind: "turn", holderId: "turn-attempt:a" });
    const ref = { workspaceId: s.workspaceId, leaseId: first.lease.id };
    await w.warming.recordAllocation({ ...ref, expectedEpoch: 0, allocationId: "alloc-a" });
    await w.warming.recordCreated({
      ...ref,
      expectedEpoch: 0,
      allocationId: "alloc-a",
      instanceId: "box-a",
    });

    w.clock.advance(w.config.warmingTimeoutMs + SECOND);
    const expired = await w.sweeps.expireWarming();
    expect(expired).toMatchObject([
      {
        to: "draining",
        lease: { liveness: "draining", epoch: 1, holderCount: 0, instanceId: "box-a" },
      },
    ]);
    expect(
      (await w.sweeps.claimDrainable({ claimId: crypto.randomUUID(), claimTtlMs: 60_000 })).map(
        (l) => [l.id, l.instanceId],
      ),
    ).toEqual([[first.lease.id, "box-a"]]);

    const arrival = await w.leases.acquire({ ...s, kind: "viewer", holderId: "v" });
    expect(arrival).toMatchObject({ role: "fenced", reason: "drain_in_progress" });
    expect(await w.db.leaseHolder.count({ where: { leaseId: first.lease.id } })).toBe(0);
    expect(await w.warming.rearm({ ...ref, expectedEpoch: 1, actor: "reaper" })).toMatchObject({
      outcome: "lost",
      reason: "not_rearmable",
    });
    expect(
      await w.warming.commitWarm({ ...ref, expectedEpoch: 0, instanceId: "box-a" }),
    ).toMatchObject({ outcome: "lost" });
    expect(
      await w.warming.markInstanceLost({
        ...ref,
        expectedEpoch: 0,
        instanceId: "box-a",
        actor: "x",
      }),
    ).toMatchObject({ outcome: "lost" });
    expect(await w.leases.readByGroup(s)).toMatchObject({ liveness: "draining", epoch: 1 });
  });

  it("scenario 10: releasing the last turn holder drains; the sweep lists it with its instance once the grace is over", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLease(w, s, "box-10");
    await releaseWarmHolder(w, lease);
    expect(
      (await w.sweeps.claimDrainable({ claimId: crypto.randomUUID(), claimTtlMs: 60_000 })).map(
        (l) => l.id,
      ),
    ).not.toContain(lease.id);

    w.clock.advance(w.config.idleGraceMs);
    const drainable = await w.sweeps.claimDrainable({
      claimId: crypto.randomUUID(),
      claimTtlMs: 60_000,
    });
    expect(drainable.filter((l) => l.id === lease.id)).toMatchObject([
      { instanceId: "box-10", holderCount: 0, epoch: 1 },
    ]);
  });

  it("scenario 11: a stale viewer is reaped while a turn holder of the same age survives; the lease stays warm", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLease(w, s, "box-11");
    await w.leases.acquire({ ...s, kind: "viewer", holderId: "v-stale" });

    w.clock.advance(10 * MINUTE);
    const { reaped } = await w.sweeps.reapHolders();

    expect(reaped).toBe(1);
    const holders = await w.db.leaseHolder.findMany({
      where: { leaseId: lease.id },
      select: { kind: true },
    });
    expect(holders).toEqual([{ kind: "turn" }]);
    expect(await w.leases.readByGroup(s)).toMatchObject({
      liveness: "warm",
      holderCount: 1,
      viewerHolders: 0,
    });

    w.clock.advance(w.config.warmingTimeoutMs + w.config.leaseTtlMs);
    await w.sweeps.reapHolders();
    expect(await w.leases.readByGroup(s)).toMatchObject({ liveness: "draining", holderCount: 0 });
  });

  it("keeps the allocation intent across a crash between create and record, and the successor adopts it", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const crashed = await w.leases.acquire({
      ...s,
      kind: "turn",
      holderId: "turn-attempt:crashed",
    });
    const ref = { workspaceId: s.workspaceId, leaseId: crashed.lease.id };
    await w.warming.recordAllocation({ ...ref, expectedEpoch: 0, allocationId: "alloc-first" });
    // The spawner created box "alloc-first" at the backend, then died before recording it.

    w.clock.advance(w.config.warmingTimeoutMs + SECOND);
    await w.sweeps.expireWarming();
    const successor = await w.leases.acquire({ ...s, kind: "turn", holderId: "turn-attempt:next" });
    const intent = await w.warming.recordAllocation({
      ...ref,
      expectedEpoch: successor.lease.epoch,
      allocationId: "alloc-second",
    });

    expect(intent).toMatchObject({ outcome: "adopted", lease: { allocationId: "alloc-first" } });
    const recorded = await w.warming.recordCreated({
      ...ref,
      expectedEpoch: successor.lease.epoch,
      allocationId: "alloc-first",
      instanceId: "box-first",
    });
    expect(recorded).toMatchObject({
      outcome: "recorded",
      lease: { allocationId: "alloc-first", instanceId: "box-first" },
    });
  });

  it("24 concurrent instance-lost marks: exactly one wins (epoch+1), holders kept except process holders", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLease(w, s, "box-lost");
    await w.leases.acquire({ ...s, kind: "viewer", holderId: "v" });
    await w.db.leaseHolder.create({
      data: {
        leaseId: lease.id,
        kind: "process",
        holderId: "process:p1",
        subjectId: s.sessionId,
        lastHeartbeatAt: new Date(),
        createdAt: new Date(),
      },
    });

    const { results, backendPids } = await concurrently(w.db, { count: 24 }, (tx, i) =>
      w.on(tx).warming.markInstanceLost({
        workspaceId: s.workspaceId,
        leaseId: lease.id,
        expectedEpoch: 1,
        instanceId: "box-lost",
        actor: `direct:req-${String(i)}`,
      }),
    );

    expect(backendPids).toBeGreaterThanOrEqual(12);
    expect(results.filter((r) => r.outcome === "marked")).toHaveLength(1);
    expect(results.filter((r) => r.outcome === "lost")).toHaveLength(23);
    const after = await w.leases.readByGroup(s);
    expect(after).toMatchObject({
      liveness: "cold",
      epoch: 2,
      instanceId: null,
      providerStatus: "missing",
      holderCount: 2,
    });
    // No archive yet, so the lost box cannot be restored: the next arrival is blocked.
    expect(after).toMatchObject({
      restoreStatus: "unrecoverable",
      failureCode: "archive_unavailable",
    });
    expect(
      (await leaseEvents(w.db, lease.id)).filter((e) => e.transition === "instance_lost"),
    ).toHaveLength(1);
    const kinds = await w.db.leaseHolder.findMany({
      where: { leaseId: lease.id },
      select: { kind: true },
      orderBy: { kind: "asc" },
    });
    expect(kinds).toEqual([{ kind: "turn" }, { kind: "viewer" }]);
    expect(await w.leases.acquire({ ...s, kind: "viewer", holderId: "v2" })).toMatchObject({
      role: "blocked",
      reason: "restore_unrecoverable",
    });
  });
});

describe("rotation", () => {
  it("never yields two recorded boxes: the old box drains to cold before a new one is spawned", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const spawn = await w.leases.acquire({
      ...s,
      kind: "viewer",
      holderId: "v",
      profile: "image:a",
    });
    const ref = { workspaceId: s.workspaceId, leaseId: spawn.lease.id };
    await w.warming.recordAllocation({ ...ref, expectedEpoch: 0, allocationId: "alloc-a" });
    await w.warming.recordCreated({
      ...ref,
      expectedEpoch: 0,
      allocationId: "alloc-a",
      instanceId: "box-a",
    });
    await w.warming.commitWarm({ ...ref, expectedEpoch: 0, instanceId: "box-a" });

    const rotation = await w.leases.acquire({
      ...s,
      kind: "viewer",
      holderId: "v",
      profile: "image:b",
    });
    expect(rotation).toMatchObject({ role: "fenced", reason: "rotation_in_progress" });
    // While the old box exists, every arrival is fenced: none can become a second spawner.
    for (const holderId of ["v", "v2"]) {
      expect(
        await w.leases.acquire({ ...s, kind: "viewer", holderId, profile: "image:b" }),
      ).toMatchObject({
        role: "fenced",
        reason: "rotation_in_progress",
        lease: { instanceId: "box-a" },
      });
    }
    expect(await w.warming.rearm({ ...ref, expectedEpoch: 1, actor: "v" })).toMatchObject({
      outcome: "lost",
    });

    const [drainable] = await w.sweeps.claimDrainable({
      claimId: crypto.randomUUID(),
      claimTtlMs: 60_000,
    });
    expect(drainable).toMatchObject({ id: spawn.lease.id, instanceId: "box-a" });
    const cold = await w.warming.confirmDrainCold({
      ...ref,
      expectedEpoch: 1,
      instanceId: "box-a",
    });
    expect(cold).toMatchObject({
      outcome: "cold",
      lease: { liveness: "cold", epoch: 2, instanceId: null, rotationRequestedAt: null },
    });

    const next = await w.leases.acquire({
      ...s,
      kind: "viewer",
      holderId: "v",
      profile: "image:b",
    });
    expect(next).toMatchObject({
      role: "spawner",
      lease: { executionProfile: "image:b", epoch: 2, instanceId: null },
    });
  });
});
