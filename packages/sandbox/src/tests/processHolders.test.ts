import { describe, expect, it } from "vitest";
import { ProcessHolders } from "../lease/processHolders.ts";
import {
  releaseWarmHolder,
  seedSession,
  useLeaseWorld,
  warmLease,
  type LeaseWorld,
} from "./leaseFixture.ts";

const world = useLeaseWorld();

function processes(w: LeaseWorld) {
  return new ProcessHolders({ db: w.db, clock: w.clock, config: w.config });
}

describe("process holders", () => {
  it("keep a warm box warm after every other holder left; closing the last starts the idle grace", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLease(w, s);
    const holders = processes(w);
    const before = (await w.db.leaseEvent.aggregate({ _max: { id: true } }))._max.id ?? 0n;
    const open = await holders.open({
      workspaceId: s.workspaceId,
      leaseId: lease.id,
      expectedEpoch: lease.epoch,
      instanceId: "box-1",
      holderId: "terminal:t1",
      subjectId: s.sessionId,
    });
    expect(open.outcome).toBe("opened");
    await releaseWarmHolder(w, lease);
    expect(await w.leases.readByGroup(s)).toMatchObject({ liveness: "warm", holderCount: 1 });
    // Time does not end a process: the reaper's holder sweep leaves it.
    w.clock.advance(w.config.viewerTtlMs * 10);
    await w.sweeps.reapHolders();
    expect(await w.leases.readByGroup(s)).toMatchObject({ liveness: "warm", holderCount: 1 });

    expect(
      await holders.close({
        workspaceId: s.workspaceId,
        leaseId: lease.id,
        holderId: "terminal:t1",
      }),
    ).toBe(true);
    expect(await w.leases.readByGroup(s)).toMatchObject({ liveness: "draining", holderCount: 0 });
    // The lifecycle is in the lease's events, the close before the drain it caused.
    const events = await w.db.leaseEvent.findMany({
      where: { leaseId: lease.id, id: { gt: before } },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => [e.transition, e.actor, e.epochAfter])).toEqual([
      ["process_opened", "terminal:t1", lease.epoch],
      ["process_closed", "terminal:t1", lease.epoch],
      ["drain", "process:terminal:t1", lease.epoch],
    ]);
    expect(
      await holders.close({
        workspaceId: s.workspaceId,
        leaseId: lease.id,
        holderId: "terminal:t1",
      }),
    ).toBe(false);
    // A repeated close records nothing.
    expect(await w.db.leaseEvent.count({ where: { leaseId: lease.id, id: { gt: before } } })).toBe(
      3,
    );
  });

  it("open only on the exact warm epoch and instance, and go with a lost instance", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLease(w, s);
    const holders = processes(w);
    const base = {
      workspaceId: s.workspaceId,
      leaseId: lease.id,
      holderId: "terminal:t2",
      subjectId: s.sessionId,
    };
    expect(
      await holders.open({ ...base, expectedEpoch: lease.epoch - 1, instanceId: "box-1" }),
    ).toMatchObject({
      outcome: "lost",
      reason: "stale_epoch",
    });
    expect(
      await holders.open({ ...base, expectedEpoch: lease.epoch, instanceId: "box-0" }),
    ).toMatchObject({
      outcome: "lost",
      reason: "stale_epoch",
    });
    expect(
      (await holders.open({ ...base, expectedEpoch: lease.epoch, instanceId: "box-1" })).outcome,
    ).toBe("opened");
    const lost = await w.warming.markInstanceLost({
      workspaceId: s.workspaceId,
      leaseId: lease.id,
      expectedEpoch: lease.epoch,
      instanceId: "box-1",
      actor: "test",
    });
    expect(lost.outcome).toBe("marked");
    expect(await w.db.leaseHolder.count({ where: { leaseId: lease.id, kind: "process" } })).toBe(0);
  });
});
