import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { RecoveryActions } from "../admin/recoveryActions.ts";
import {
  archivedWarmLease,
  concurrently,
  leaseEvents,
  seedSession,
  useLeaseWorld,
  settledWrite,
  warmLease,
  type LeaseWorld,
  type SeededSession,
  releaseWarmHolder,
} from "./leaseFixture.ts";

const world = useLeaseWorld();
const SECOND = 1_000;
const admin = { kind: "user", id: "admin-1" } as const;

/** Acquires as the spawner and begins a restore: the attempt id and the lease after. */
async function spawnRestore(w: LeaseWorld, s: SeededSession) {
  const spawn = await w.leases.acquire({
    ...s,
    kind: "turn",
    holderId: `turn-attempt:${randomUUID()}`,
  });
  if (spawn.role !== "spawner") throw new Error(`expected to spawn, got ${spawn.role}`);
  const rematerializationId = randomUUID();
  const fence = {
    workspaceId: s.workspaceId,
    leaseId: spawn.lease.id,
    expectedEpoch: spawn.lease.epoch,
  };
  const begun = await w.recovery.beginRematerialization({ ...fence, rematerializationId });
  return { fence, rematerializationId, begun };
}

describe("recovery (spec/lease.md §5, §13)", () => {
  it("scenario 18: a lost box with a complete archive is marked once, rematerialized by one spawner, and verified before warm", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const archived = await archivedWarmLease(w, s, "box-18");
    expect(archived).toMatchObject({
      archiveStatus: "available",
      archiveGeneration: 1,
      workspaceGeneration: 1,
      archiveComplete: true,
    });

    const marks = await concurrently(w.db, { count: 24 }, (tx, i) =>
      w.on(tx).warming.markInstanceLost({
        workspaceId: s.workspaceId,
        leaseId: archived.id,
        expectedEpoch: 1,
        instanceId: "box-18",
        actor: `o${String(i)}`,
      }),
    );
    expect(marks.backendPids).toBeGreaterThanOrEqual(12);
    expect(marks.results.filter((r) => r.outcome === "marked")).toHaveLength(1);
    const lost = await w.leases.readByGroup(s);
    expect(lost).toMatchObject({
      liveness: "cold",
      epoch: 2,
      providerStatus: "missing",
      restoreStatus: "pending",
      workspaceStatus: "not_ready",
      selectedRevision: archived.archiveRevision,
    });

    const arrivals = await concurrently(w.db, { count: 24 }, (tx, i) =>
      w.on(tx).leases.acquire({ ...s, kind: "viewer", holderId: `v${String(i)}` }),
    );
    expect(arrivals.results.filter((r) => r.role === "spawner")).toHaveLength(1);
    const fence = { workspaceId: s.workspaceId, leaseId: archived.id, expectedEpoch: 2 };
    const attempt = randomUUID();
    const begins = await Promise.all(
      Array.from({ length: 8 }, () =>
        w.recovery.beginRematerialization({ ...fence, rematerializationId: attempt }),
      ),
    );
    expect(begins.map((b) => b.outcome)).toEqual(Array(8).fill("started"));
    expect(await w.db.rematerialization.count({ where: { leaseId: archived.id } })).toBe(1);
    expect(
      await w.recovery.beginRematerialization({ ...fence, rematerializationId: randomUUID() }),
    ).toMatchObject({
      outcome: "lost",
      reason: "attempt_conflict",
    });

    await w.warming.recordAllocation({ ...fence, allocationId: "alloc-r" });
    expect(
      await w.warming.recordCreated({ ...fence, allocationId: "alloc-r", instanceId: "box-r" }),
    ).toMatchObject({
      outcome: "lost",
      reason: "rematerialization_mismatch",
    });
    await w.warming.recordCreated({
      ...fence,
      allocationId: "alloc-r",
      instanceId: "box-r",
      rematerializationId: attempt,
    });
    expect(await w.warming.commitWarm({ ...fence, instanceId: "box-r" })).toMatchObject({
      outcome: "lost",
      reason: "rematerialization_required",
    });
    expect(
      await w.recovery.markVerifying({
        ...fence,
        rematerializationId: attempt,
        revision: "some-other-revision",
      }),
    ).toMatchObject({
      outcome: "lost",
      reason: "rematerialization_mismatch",
    });
    const verifying = await w.recovery.markVerifying({
      ...fence,
      rematerializationId: attempt,
      revision: archived.archiveRevision ?? "",
    });
    expect(verifying).toMatchObject({
      outcome: "verifying",
      lease: { restoreStatus: "verifying" },
    });
    expect(
      await w.warming.commitWarm({
        ...fence,
        instanceId: "box-r",
        rematerializationId: randomUUID(),
      }),
    ).toMatchObject({
      outcome: "lost",
      reason: "rematerialization_mismatch",
    });

    const commit = await w.warming.commitWarm({
      ...fence,
      instanceId: "box-r",
      rematerializationId: attempt,
    });
    expect(commit).toMatchObject({
      outcome: "committed",
      lease: {
        liveness: "warm",
        epoch: 3,
        restoreStatus: "ready",
        workspaceStatus: "ready",
        selectedRevision: archived.archiveRevision,
      },
    });
    expect(
      await w.db.rematerialization.findUniqueOrThrow({ where: { id: attempt } }),
    ).toMatchObject({ status: "ready" });
    expect(
      await w.recovery.markVerifying({
        ...fence,
        rematerializationId: attempt,
        revision: archived.archiveRevision ?? "",
      }),
    ).toMatchObject({
      outcome: "lost",
      reason: "stale_epoch",
    });
  });

  it("scenario 6 (rematerialization): a restore whose spawner died before creating goes cold, archive kept; the late attempt cannot attribute", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const archived = await archivedWarmLease(w, s, "box-6");
    await w.warming.markInstanceLost({
      workspaceId: s.workspaceId,
      leaseId: archived.id,
      expectedEpoch: 1,
      instanceId: "box-6",
      actor: "o",
    });
    const first = await spawnRestore(w, s);
    expect(first.begun.outcome).toBe("started");
    await w.warming.recordAllocation({ ...first.fence, allocationId: "alloc-6" });

    w.clock.advance(w.config.warmingTimeoutMs + SECOND);
    await w.sweeps.expireWarming();
    expect(await w.leases.readByGroup(s)).toMatchObject({
      liveness: "cold",
      epoch: 3,
      archiveStatus: "available",
      restoreStatus: "pending",
      rematerializationId: null,
    });
    expect(
      await w.db.rematerialization.findUniqueOrThrow({ where: { id: first.rematerializationId } }),
    ).toMatchObject({ status: "failed" });

    const second = await spawnRestore(w, s);
    expect(second).toMatchObject({ fence: { expectedEpoch: 3 }, begun: { outcome: "started" } });
    const late = await w.warming.recordCreated({
      ...first.fence,
      allocationId: "alloc-6",
      instanceId: "box-late",
      rematerializationId: first.rematerializationId,
    });
    expect(late).toMatchObject({ outcome: "lost", reason: "stale_epoch" });
    const wrongAttempt = await w.warming.recordCreated({
      ...second.fence,
      allocationId: "alloc-6",
      instanceId: "box-late",
      rematerializationId: first.rematerializationId,
    });
    expect(wrongAttempt).toMatchObject({ outcome: "lost", reason: "rematerialization_mismatch" });
    const exact = await w.warming.recordCreated({
      ...second.fence,
      allocationId: "alloc-6",
      instanceId: "box-6b",
      rematerializationId: second.rematerializationId,
    });
    expect(exact).toMatchObject({ outcome: "recorded", lease: { instanceId: "box-6b" } });
  });

  it("the retry budget: a retryable failure allows one retry (one spawner); the second failure makes it unrecoverable; start fresh unblocks", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const archived = await archivedWarmLease(w, s, "box-b");
    await w.warming.markInstanceLost({
      workspaceId: s.workspaceId,
      leaseId: archived.id,
      expectedEpoch: 1,
      instanceId: "box-b",
      actor: "o",
    });

    for (const attempt of [1, 2]) {
      const arrivals = await concurrently(w.db, { count: 10 }, (tx, i) =>
        w
          .on(tx)
          .leases.acquire({ ...s, kind: "viewer", holderId: `v-${String(attempt)}-${String(i)}` }),
      );
      expect(arrivals.results.filter((r) => r.role === "spawner")).toHaveLength(1);
      const spawner = arrivals.results.find((r) => r.role === "spawner");
      const fence = {
        workspaceId: s.workspaceId,
        leaseId: archived.id,
        expectedEpoch: spawner?.lease.epoch ?? -1,
      };
      const id = randomUUID();
      await w.recovery.beginRematerialization({ ...fence, rematerializationId: id });
      const failed = await w.recovery.failRematerialization({
        ...fence,
        rematerializationId: id,
        failureCode: "archive_hydration_failed",
        retryable: true,
      });
      expect(failed).toMatchObject({
        outcome: "failed",
        lease: {
          liveness: "cold",
          restoreAttempts: attempt,
          restoreStatus: attempt < 2 ? "degraded" : "unrecoverable",
          retryable: attempt < 2,
        },
      });
    }

    const blocked = await w.leases.acquire({ ...s, kind: "viewer", holderId: "late" });
    expect(blocked).toMatchObject({
      role: "blocked",
      reason: "restore_unrecoverable",
      lease: { restoreStatus: "unrecoverable" },
    });
    const auditBefore = await w.db.auditEvent.count({ where: { workspaceId: s.workspaceId } });
    const eventsBefore = (await leaseEvents(w.db, archived.id)).length;

    const fresh = await new RecoveryActions({
      resources: { db: w.db, clock: w.clock, config: w.config },
      drainPort: w.drainPort,
    }).startFresh({
      lease: blocked.lease,
      actor: admin,
    });

    expect(fresh).toMatchObject({
      outcome: "started_fresh",
      lease: {
        liveness: "cold",
        epoch: blocked.lease.epoch + 1,
        archiveStatus: "none",
        restoreStatus: "not_required",
        workspaceGeneration: 1,
      },
    });
    const audit = await w.db.auditEvent.findMany({ where: { workspaceId: s.workspaceId } });
    expect(audit).toHaveLength(auditBefore + 1);
    expect(audit.at(-1)).toMatchObject({
      action: "lease.start_fresh",
      actorKind: "user",
      actorId: "admin-1",
      targetId: archived.id,
    });
    expect(audit.at(-1)?.after).toMatchObject({ discardedGenerations: { from: 1, to: 1 } });
    expect(await leaseEvents(w.db, archived.id)).toHaveLength(eventsBefore + 1);
    expect(await w.leases.acquire({ ...s, kind: "viewer", holderId: "after" })).toMatchObject({
      role: "spawner",
    });
  });

  it("a non-retryable failure is unrecoverable at once; start fresh is refused on a lease that is not blocked", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const archived = await archivedWarmLease(w, s, "box-n");
    expect(
      await w.recovery.startFresh({
        workspaceId: s.workspaceId,
        leaseId: archived.id,
        expectedEpoch: archived.epoch,
        actor: admin,
      }),
    ).toMatchObject({
      outcome: "lost",
      reason: "not_blocked",
    });
    await w.warming.markInstanceLost({
      workspaceId: s.workspaceId,
      leaseId: archived.id,
      expectedEpoch: 1,
      instanceId: "box-n",
      actor: "o",
    });
    const { fence, rematerializationId } = await spawnRestore(w, s);
    const failed = await w.recovery.failRematerialization({
      ...fence,
      rematerializationId,
      failureCode: "workspace_fingerprint_mismatch",
      retryable: false,
    });
    expect(failed).toMatchObject({
      lease: {
        restoreStatus: "unrecoverable",
        failureCode: "workspace_fingerprint_mismatch",
        retryable: false,
      },
    });
    expect(await w.leases.acquire({ ...s, kind: "viewer", holderId: "v" })).toMatchObject({
      role: "blocked",
      reason: "restore_unrecoverable",
    });
    expect(await w.db.auditEvent.count({ where: { workspaceId: s.workspaceId } })).toBe(0);
  });

  it("scenario 15: a box gone before capture with no archive goes cold unrecoverable and blocks", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLease(w, s, "box-15");
    await settledWrite(w, { session: s, lease });
    await releaseWarmHolder(w, lease);
    await w.drainPort.stop(lease); // the box dies on its own
    w.clock.advance(w.config.idleGraceMs);

    const report = await w.reaper.sweepOnce();

    expect(report.drains).toEqual([{ leaseId: lease.id, result: "cold" }]);
    expect(await w.leases.readByGroup(s)).toMatchObject({
      liveness: "cold",
      providerStatus: "missing",
      restoreStatus: "unrecoverable",
      failureCode: "provider_missing_before_capture",
    });
    expect(await w.leases.acquire({ ...s, kind: "viewer", holderId: "v" })).toMatchObject({
      role: "blocked",
    });
  });

  it("scenario 35: fail-warming keeps an archive for the retry; without one the lease is cleanly cold", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const archived = await archivedWarmLease(w, s, "box-35");
    await w.warming.markInstanceLost({
      workspaceId: s.workspaceId,
      leaseId: archived.id,
      expectedEpoch: 1,
      instanceId: "box-35",
      actor: "o",
    });
    const { fence } = await spawnRestore(w, s);
    const failed = await w.warming.failWarming({ ...fence, terminated: true });
    expect(failed).toMatchObject({
      lease: {
        liveness: "cold",
        archiveStatus: "available",
        restoreStatus: "pending",
        archiveRevision: archived.archiveRevision,
      },
    });

    const t = await seedSession(w.db);
    const spawn = await w.leases.acquire({ ...t, kind: "viewer", holderId: "v" });
    const clean = await w.warming.failWarming({
      workspaceId: t.workspaceId,
      leaseId: spawn.lease.id,
      expectedEpoch: 0,
      terminated: true,
    });
    expect(clean).toMatchObject({
      lease: {
        liveness: "cold",
        archiveStatus: "none",
        restoreStatus: "not_required",
        workspaceStatus: "unknown",
      },
    });
    expect(await w.leases.acquire({ ...t, kind: "viewer", holderId: "v" })).toMatchObject({
      role: "spawner",
    });
  });
});
