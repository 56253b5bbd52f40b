import { describe, expect, it } from "vitest";
import { RecoveryActions } from "../admin/recoveryActions.ts";
import {
  archivedWarmLease,
  leaseEvents,
  seedSession,
  useLeaseWorld,
  settledWrite,
  warmLease,
} from "./leaseFixture.ts";

const world = useLeaseWorld();
const admin = { kind: "user", id: "admin-1" } as const;

describe("admin restore revision (spec/lease.md §5; DESIGN.md)", () => {
  it("restore revision R: the live box is captured first; R is selected and complete at a new generation; audited once", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const first = await archivedWarmLease(w, s, "box-r");
    const r1 = first.archiveRevision ?? "";
    await settledWrite(w, { session: s, lease: first });
    const before = await w.leases.readByGroup(s);
    expect(before).toMatchObject({
      workspaceGeneration: 2,
      archiveGeneration: 1,
      archiveComplete: false,
    });
    const eventsBefore = (await leaseEvents(w.db, first.id)).length;

    const actions = new RecoveryActions({
      resources: { db: w.db, clock: w.clock, config: w.config },
      drainPort: w.drainPort,
    });
    const restored = await actions.restoreRevision({
      lease: before ?? first,
      revision: r1,
      actor: admin,
    });

    expect(w.drainPort.stops).toEqual(["box-r"]);
    expect(w.drainPort.hasBox("box-r")).toBe(false);
    expect(restored).toMatchObject({
      outcome: "restored",
      lease: {
        liveness: "cold",
        epoch: 2,
        workspaceGeneration: 3,
        archiveGeneration: 3,
        archiveRevision: r1,
        selectedRevision: r1,
        restoreStatus: "pending",
        archiveComplete: true,
        instanceId: null,
      },
    });
    // The live workspace (generation 2) was kept as an archive of its own before going back.
    expect(await w.db.workspaceArchive.count({ where: { leaseId: first.id } })).toBe(2);
    const audit = await w.db.auditEvent.findMany({ where: { workspaceId: s.workspaceId } });
    expect(audit.map((a) => a.action)).toEqual(["lease.restore_revision"]);
    expect(audit[0]?.after).toMatchObject({
      selectedRevision: r1,
      workspaceGeneration: 3,
      archiveGeneration: 3,
    });
    const events = (await leaseEvents(w.db, first.id)).slice(eventsBefore);
    expect(events.map((e) => e.transition)).toEqual([
      "restore_fence",
      "publish_archive",
      "restore_revision",
    ]);
    expect(
      await w.recovery.restoreRevision({
        workspaceId: s.workspaceId,
        leaseId: first.id,
        expectedEpoch: 2,
        instanceId: null,
        revision: "nope",
        actor: admin,
      }),
    ).toMatchObject({
      outcome: "lost",
      reason: "revision_not_found",
    });
  });
});

describe("incomplete archives", () => {
  it("a box lost after writes its archive did not capture is degraded and blocked, never restored from the older archive", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const archived = await archivedWarmLease(w, s, "box-i");
    const write = await w.admissions.admit({
      ...s,
      leaseId: archived.id,
      expectedEpoch: 1,
      instanceId: "box-i",
      holderKind: "turn",
      holderId: "turn-attempt:first",
      routeTargetId: null,
      routeEpoch: 0,
      operation: "fs.write",
    });
    expect(write).toMatchObject({ admitted: true, generation: 2 });

    const lost = await w.warming.markInstanceLost({
      workspaceId: s.workspaceId,
      leaseId: archived.id,
      expectedEpoch: 1,
      instanceId: "box-i",
      actor: "o",
    });

    expect(lost).toMatchObject({
      outcome: "marked",
      lease: {
        restoreStatus: "degraded",
        failureCode: "archive_generation_mismatch",
        retryable: false,
        archiveComplete: false,
      },
    });
    expect(await w.leases.acquire({ ...s, kind: "viewer", holderId: "v" })).toMatchObject({
      role: "blocked",
      reason: "restore_degraded",
      lease: { epoch: 2, restoreStatus: "degraded" },
    });
  });
});

describe("write admissions (spec/lease.md §5.9)", () => {
  it("the acquire statement admits a write on a warm box under the holder it just made, and tries nothing otherwise", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const holder = { ...s, kind: "direct" as const };
    const cold = await w.leases.acquireAndAdmit({ ...holder, holderId: "direct:cold" }, "fs.write");
    expect(cold).toMatchObject({ acquired: { role: "spawner" }, admission: null });
    await w.leases.release({
      workspaceId: s.workspaceId,
      leaseId: cold.acquired.lease.id,
      kind: "direct",
      holderId: "direct:cold",
    });
    const lease = await warmLease(w, s, "box-one-trip");
    const warm = await w.leases.acquireAndAdmit({ ...holder, holderId: "direct:w1" }, "fs.write");
    expect(warm).toMatchObject({
      acquired: { role: "attached" },
      pointer: { activeSandboxId: null, activeEpoch: 0 },
      admission: { admitted: true, generation: 1 },
    });
    const admitted = await w.db.mutationAdmission.findMany({ where: { leaseId: lease.id } });
    expect(admitted).toEqual([
      expect.objectContaining({
        holderKind: "direct",
        holderId: "direct:w1",
        epoch: lease.epoch,
        instanceId: "box-one-trip",
        operation: "fs.write",
        generation: 1,
        settledAt: null,
      }),
    ]);
    // A session routed to an enrolled machine: its writes are not the group box's to admit.
    await w.db.session.update({
      where: { id: s.sessionId },
      data: { activeSandboxId: crypto.randomUUID(), activeEpoch: 1 },
    });
    const routed = await w.leases.acquireAndAdmit({ ...holder, holderId: "direct:w2" }, "fs.write");
    expect(routed).toMatchObject({ acquired: { role: "attached" }, admission: null });
    expect((await w.leases.readByGroup(s))?.workspaceGeneration).toBe(1);
    // A blank operation name is refused before anything is written: no holder, no admission.
    await expect(
      w.leases.acquireAndAdmit({ ...holder, holderId: "direct:blank" }, " "),
    ).rejects.toMatchObject({ code: "invalid_input" });
    expect(await w.db.leaseHolder.count({ where: { holderId: "direct:blank" } })).toBe(0);
    expect(await w.db.mutationAdmission.count({ where: { leaseId: lease.id } })).toBe(1);
  });

  it("admits under the exact fence, refuses a stale route, holder or epoch, and gates publishing on settlement", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLease(w, s, "box-w");
    const write = {
      ...s,
      leaseId: lease.id,
      expectedEpoch: 1,
      instanceId: "box-w",
      holderKind: "turn",
      holderId: "turn-attempt:first",
      routeTargetId: null,
      routeEpoch: 0,
      operation: "fs.write",
    } as const;

    const admitted = await w.admissions.admit(write);
    expect(admitted).toMatchObject({ admitted: true, generation: 1 });

    await w.db.session.update({ where: { id: s.sessionId }, data: { activeEpoch: 1 } });
    expect(await w.admissions.admit(write)).toEqual({ admitted: false, reason: "route_fenced" });
    expect(
      await w.admissions.admit({ ...write, routeEpoch: 1, holderId: "turn-attempt:other" }),
    ).toEqual({ admitted: false, reason: "holder_fenced" });
    expect(await w.admissions.admit({ ...write, routeEpoch: 1, expectedEpoch: 0 })).toEqual({
      admitted: false,
      reason: "lease_fenced",
    });
    expect((await w.leases.readByGroup(s))?.workspaceGeneration).toBe(1);

    const publish = {
      workspaceId: s.workspaceId,
      leaseId: lease.id,
      expectedEpoch: 1,
      instanceId: "box-w",
      generation: 1,
      revision: "a".repeat(64),
      archive: { sizeBytes: 10, fileCount: 1, storageKey: "k/a", sha256: "b".repeat(64) },
    };
    expect(await w.recovery.publishArchive(publish)).toMatchObject({
      outcome: "lost",
      reason: "admissions_unsettled",
    });
    if (!admitted.admitted) throw new Error("not admitted");
    expect(
      await w.admissions.settle({
        workspaceId: s.workspaceId,
        admissionId: admitted.admissionId,
        outcome: "rejected",
      }),
    ).toBe("settled");
    expect(
      await w.admissions.settle({
        workspaceId: s.workspaceId,
        admissionId: admitted.admissionId,
        outcome: "resolved",
      }),
    ).toBe("already_settled");
    expect(await w.recovery.publishArchive(publish)).toMatchObject({
      outcome: "published",
      lease: { archiveGeneration: 1, workspaceGeneration: 1, archiveComplete: true },
    });
    expect(await w.recovery.publishArchive({ ...publish, generation: 0 })).toMatchObject({
      outcome: "lost",
      reason: "workspace_changed_during_capture",
    });
  });
});
