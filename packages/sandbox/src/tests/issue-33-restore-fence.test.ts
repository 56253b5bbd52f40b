import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { RecoveryActions } from "../admin/recoveryActions.ts";
import { RestoreRefusedError } from "../admin/restoreRefusedError.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { CaptureResult, DrainPort } from "../reaper/drainPort.ts";
import {
  archivedWarmLease,
  leaseEvents,
  releaseWarmHolder,
  seedSession,
  settledWrite,
  useLeaseWorld,
  type LeaseWorld,
  type SeededSession,
} from "./leaseFixture.ts";

// Issue 33 item 8: an admin's restore of a live box fences it, captures it, stops it and selects
// the revision, all under the epoch it started from. These scenarios drive the lease functions
// with real concurrency over real Postgres; the box is the in-memory DrainPort's (the real-box
// run is issue-33-restore-live-box.test.ts).

const world = useLeaseWorld();
const admin = { kind: "user", id: "admin-1" } as const;

/** A promise and its resolver: a step of a port held until the test lets it go. */
function gate(): { readonly opened: Promise<void>; open(): void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * The in-memory DrainPort with its capture and stop held at a gate when the test asks: a
 * racepoint at the exact step another actor must act at. `reached` resolves when one is held.
 */
class GatedDrainPort implements DrainPort {
  readonly #inner: DrainPort;
  captureGate: ReturnType<typeof gate> | null = null;
  stopGate: ReturnType<typeof gate> | null = null;
  readonly reached = gate();

  constructor(inner: DrainPort) {
    this.#inner = inner;
  }

  async capture(lease: LeaseSnapshot, actor: string): Promise<CaptureResult> {
    if (this.captureGate !== null) {
      this.reached.open();
      await this.captureGate.opened;
    }
    return this.#inner.capture(lease, actor);
  }

  async stop(lease: LeaseSnapshot): Promise<void> {
    if (this.stopGate !== null) {
      this.reached.open();
      await this.stopGate.opened;
    }
    await this.#inner.stop(lease);
  }
}

function actionsOf(
  w: LeaseWorld,
  options: { drainPort?: DrainPort; claimTtlMs?: number; settleTimeoutMs?: number } = {},
) {
  return new RecoveryActions({
    resources: { db: w.db, clock: w.clock, config: w.config },
    drainPort: options.drainPort ?? w.drainPort,
    ...(options.claimTtlMs === undefined ? {} : { claimTtlMs: options.claimTtlMs }),
    ...(options.settleTimeoutMs === undefined ? {} : { settleTimeoutMs: options.settleTimeoutMs }),
  });
}

async function current(w: LeaseWorld, s: SeededSession): Promise<LeaseSnapshot> {
  const lease = await w.leases.readByGroup(s);
  if (lease === null) throw new Error("no lease");
  return lease;
}

/** Waits until the lease shows `done` (another actor's step, seen in Postgres). */
async function until(
  w: LeaseWorld,
  s: SeededSession,
  done: (lease: LeaseSnapshot) => boolean,
): Promise<LeaseSnapshot> {
  for (let i = 0; i < 1_000; i += 1) {
    const lease = await current(w, s);
    if (done(lease)) return lease;
    await sleep(10);
  }
  throw new Error("the lease never reached the expected state");
}

async function leaseRow(w: LeaseWorld, leaseId: string) {
  return w.db.sandboxLease.findUniqueOrThrow({ where: { id: leaseId } });
}

async function unsettledWrite(w: LeaseWorld, s: SeededSession, lease: LeaseSnapshot) {
  const admitted = await w.admissions.admit({
    ...s,
    leaseId: lease.id,
    expectedEpoch: lease.epoch,
    instanceId: lease.instanceId ?? "",
    holderKind: "turn",
    holderId: "turn-attempt:first",
    routeTargetId: null,
    routeEpoch: 0,
    operation: "fs.write",
  });
  if (!admitted.admitted) throw new Error(admitted.reason);
  return admitted;
}

describe("issue 33: an admin restore fences a live box before it captures it", () => {
  it("a write admitted before the fence is waited for and captured; none is admitted after it, every arrival is fenced", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const first = await archivedWarmLease(w, s, "box-f");
    const r1 = first.archiveRevision ?? "";
    const inFlight = await unsettledWrite(w, s, first);
    expect(inFlight.generation).toBe(2);

    const restoring = actionsOf(w).restoreRevision({ lease: first, revision: r1, actor: admin });
    const fenced = await until(w, s, (lease) => lease.liveness === "draining");
    expect(fenced).toMatchObject({ epoch: first.epoch, instanceId: "box-f", holderCount: 0 });

    // Past the fence: no write is admitted, and every arrival waits (fenced, no holder made).
    const late = await w.admissions.admit({
      ...s,
      leaseId: first.id,
      expectedEpoch: first.epoch,
      instanceId: "box-f",
      holderKind: "turn",
      holderId: "turn-attempt:first",
      routeTargetId: null,
      routeEpoch: 0,
      operation: "fs.write",
    });
    expect(late).toEqual({ admitted: false, reason: "lease_fenced" });
    const arriving = await w.leases.acquireAndAdmit(
      { ...s, kind: "direct", holderId: "direct:late" },
      "fs.write",
    );
    expect(arriving).toMatchObject({ acquired: { role: "fenced" }, admission: null });
    expect(await w.leases.acquire({ ...s, kind: "viewer", holderId: "v" })).toMatchObject({
      role: "fenced",
    });
    // Nothing is captured while the write admitted before the fence is still reaching the box.
    expect(w.drainPort.captures).toEqual(["box-f"]);

    await w.admissions.settle({
      workspaceId: s.workspaceId,
      admissionId: inFlight.admissionId,
      outcome: "resolved",
    });
    const restored = await restoring;

    expect(restored).toMatchObject({
      outcome: "restored",
      lease: {
        liveness: "cold",
        epoch: first.epoch + 1,
        selectedRevision: r1,
        workspaceGeneration: 3,
        archiveGeneration: 3,
        holderCount: 0,
      },
    });
    expect(w.drainPort.stops).toEqual(["box-f"]);
    // The capture holds the in-flight write: generation 2 is an archive of its own.
    const archives = await w.db.workspaceArchive.findMany({ where: { leaseId: first.id } });
    expect(archives.map((a) => a.generation).sort()).toEqual([1, 2]);
    const transitions = (await leaseEvents(w.db, first.id)).map((e) => e.transition);
    expect(transitions.slice(-3)).toEqual(["restore_fence", "publish_archive", "restore_revision"]);
    expect((await leaseRow(w, first.id)).restoreClaimId).toBeNull();
  });

  it("writes that do not settle in time: refused, retryable; the fence is given back and the box keeps running", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const first = await archivedWarmLease(w, s, "box-u");
    await unsettledWrite(w, s, first);

    const refusal = await actionsOf(w, { settleTimeoutMs: 0 })
      .restoreRevision({ lease: first, revision: first.archiveRevision ?? "", actor: admin })
      .catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(RestoreRefusedError);
    expect(refusal).toMatchObject({ code: "writes_in_flight", retryable: true });
    const after = await current(w, s);
    expect(after).toMatchObject({
      liveness: "draining",
      epoch: first.epoch,
      instanceId: "box-u",
      drainClaimId: null,
      workspaceGeneration: 2,
      archiveGeneration: 1,
    });
    expect(after.expiresAt.getTime()).toBe((await w.clock.now()).getTime() + w.config.idleGraceMs);
    expect((await leaseRow(w, first.id)).restoreClaimId).toBeNull();
    expect(w.drainPort.captures).toEqual(["box-u"]);
    expect(w.drainPort.stops).toEqual([]);
    // The next arrival re-arms the same box: nothing was lost, nothing moved the epoch.
    expect(
      await w.leases.acquire({ ...s, kind: "turn", holderId: "turn-attempt:2" }),
    ).toMatchObject({ role: "rearmed", lease: { epoch: first.epoch, instanceId: "box-u" } });
    expect((await leaseEvents(w.db, first.id)).map((e) => e.transition).slice(-3)).toEqual([
      "restore_fence",
      "restore_unfence",
      "rearm",
    ]);
  });

  it("a capture that cannot be made now: refused, retryable, the box is not stopped", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const first = await archivedWarmLease(w, s, "box-c");
    await settledWrite(w, { session: s, lease: first });
    w.drainPort.captureMode("unavailable");

    const refusal = await actionsOf(w)
      .restoreRevision({ lease: first, revision: first.archiveRevision ?? "", actor: admin })
      .catch((error: unknown) => error);

    expect(refusal).toMatchObject({ code: "capture_unavailable", retryable: true });
    expect(w.drainPort.stops).toEqual([]);
    expect(await current(w, s)).toMatchObject({
      liveness: "draining",
      epoch: first.epoch,
      drainClaimId: null,
      workspaceGeneration: 2,
    });
  });

  it("a restore racing another restore: one wins, the other is refused as restore_in_progress and changes nothing", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const first = await archivedWarmLease(w, s, "box-rr");
    await settledWrite(w, { session: s, lease: first });
    const live = await current(w, s);
    const gated = new GatedDrainPort(w.drainPort);
    gated.captureGate = gate();

    const winner = actionsOf(w, { drainPort: gated }).restoreRevision({
      lease: live,
      revision: first.archiveRevision ?? "",
      actor: admin,
    });
    await gated.reached.opened;
    const fencedRow = await leaseRow(w, first.id);

    const loser = await actionsOf(w).restoreRevision({
      lease: live,
      revision: first.archiveRevision ?? "",
      actor: { kind: "token", id: "another-admin" },
    });
    expect(loser).toMatchObject({ outcome: "lost", reason: "restore_in_progress" });
    expect(await leaseRow(w, first.id)).toEqual(fencedRow);

    gated.captureGate.open();
    expect(await winner).toMatchObject({ outcome: "restored", lease: { epoch: live.epoch + 1 } });
    // A restore that read the lease before the winner finished is refused by the epoch.
    expect(
      await actionsOf(w).restoreRevision({
        lease: live,
        revision: first.archiveRevision ?? "",
        actor: admin,
      }),
    ).toMatchObject({ outcome: "lost", reason: "stale_epoch" });
    const audit = await w.db.auditEvent.findMany({ where: { workspaceId: s.workspaceId } });
    expect(audit.map((a) => [a.action, a.actorId])).toEqual([
      ["lease.restore_revision", "admin-1"],
    ]);
  });

  it("a reaper's drain in progress refuses the restore; under the restore's fence the reaper drains nothing", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const first = await archivedWarmLease(w, s, "box-d");
    await settledWrite(w, { session: s, lease: first });
    await releaseWarmHolder(w, first);
    w.clock.advance(w.config.idleGraceMs);
    // (Leases of the tests before this one may be claimed too: they are done with.)
    const claimed = (
      await w.sweeps.claimDrainable({ claimId: crypto.randomUUID(), claimTtlMs: 60_000 })
    ).filter((lease) => lease.id === first.id);
    expect(claimed).toHaveLength(1);
    const before = await leaseRow(w, first.id);

    const refused = await actionsOf(w).restoreRevision({
      lease: await current(w, s),
      revision: first.archiveRevision ?? "",
      actor: admin,
    });
    expect(refused).toMatchObject({ outcome: "lost", reason: "drain_in_progress" });
    expect(await leaseRow(w, first.id)).toEqual(before);

    // The reaper gives its claim back (say, its capture failed); now the restore fences first.
    await w.sweeps.releaseDrainClaim(claimed[0] ?? first);
    const gated = new GatedDrainPort(w.drainPort);
    gated.stopGate = gate();
    const restoring = actionsOf(w, { drainPort: gated }).restoreRevision({
      lease: await current(w, s),
      revision: first.archiveRevision ?? "",
      actor: admin,
    });
    await gated.reached.opened;
    const sweep = await w.reaper.sweepOnce();
    expect(sweep.drains).toEqual([]);
    gated.stopGate.open();
    expect(await restoring).toMatchObject({ outcome: "restored" });
    expect(w.drainPort.stops).toEqual(["box-d"]);
  });

  it("a restore whose process stalls past its claim: the reaper takes the box over and drains it; the restore loses by name, nothing is lost", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const first = await archivedWarmLease(w, s, "box-t");
    await settledWrite(w, { session: s, lease: first });
    const live = await current(w, s);
    const gated = new GatedDrainPort(w.drainPort);
    gated.captureGate = gate();

    const stalled = actionsOf(w, { drainPort: gated, claimTtlMs: 60_000 }).restoreRevision({
      lease: live,
      revision: first.archiveRevision ?? "",
      actor: admin,
    });
    await gated.reached.opened;
    w.clock.advance(60_000);
    const sweep = await w.reaper.sweepOnce();
    expect(sweep.drains).toEqual([{ leaseId: first.id, result: "cold" }]);
    const drained = await current(w, s);
    // The reaper captured the live workspace (generation 2) before it stopped the box.
    expect(drained).toMatchObject({
      liveness: "cold",
      epoch: live.epoch + 1,
      archiveGeneration: 2,
      workspaceGeneration: 2,
      archiveComplete: true,
    });

    gated.captureGate.open();
    expect(await stalled).toMatchObject({ outcome: "lost", reason: "stale_epoch" });
    expect(await current(w, s)).toEqual(drained);
    expect(await w.db.auditEvent.count({ where: { workspaceId: s.workspaceId } })).toBe(0);
  });
});
