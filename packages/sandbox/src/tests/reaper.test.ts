import { describe, expect, it } from "vitest";
import { sandboxEnvSchema } from "../env.ts";
import { ReaperSystem } from "../reaper/reaperSystem.ts";
import { createDbClient } from "@berth/db";
import {
  leaseEvents,
  seedSession,
  useLeaseWorld,
  settledWrite,
  warmLease,
  releaseWarmHolder,
} from "./leaseFixture.ts";

const world = useLeaseWorld();
const SECOND = 1_000;

describe("the reaper (spec/lease.md §10, §13)", () => {
  it("scenario 31: stops a box only with zero holders past the grace — never under a holder, never inside the grace", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLease(w, s, "box-31");
    await settledWrite(w, { session: s, lease });
    await w.leases.acquire({ ...s, kind: "viewer", holderId: "v" });
    const ref = { workspaceId: s.workspaceId, leaseId: lease.id };

    await w.reaper.sweepOnce();
    expect(w.drainPort.stops).toEqual([]); // warm, held

    await w.leases.release({ ...ref, kind: "turn", holderId: "turn-attempt:first" });
    await w.leases.release({ ...ref, kind: "viewer", holderId: "v" });
    w.clock.advance(w.config.idleGraceMs - SECOND);
    await w.reaper.sweepOnce();
    expect(w.drainPort.stops).toEqual([]); // inside the grace

    w.clock.advance(SECOND);
    const report = await w.reaper.sweepOnce();
    expect(report.drains).toEqual([{ leaseId: lease.id, result: "cold" }]);
    expect(w.drainPort.captures).toEqual(["box-31"]);
    expect(w.drainPort.stops).toEqual(["box-31"]);
    expect(await w.leases.readByGroup(s)).toMatchObject({
      liveness: "cold",
      epoch: 2,
      instanceId: null,
      archiveStatus: "available",
      restoreStatus: "pending",
      archiveComplete: true,
    });
    const transitions = (await leaseEvents(w.db, lease.id)).map((e) => e.transition);
    expect(transitions.slice(-3)).toEqual(["drain", "publish_archive", "drain_cold"]);
  });

  it("scenario 14: the archive survives drain-to-cold and is what the next spawner restores", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLease(w, s, "box-14");
    await settledWrite(w, { session: s, lease });
    await releaseWarmHolder(w, lease);
    w.clock.advance(w.config.idleGraceMs);
    await w.reaper.sweepOnce();
    const cold = await w.leases.readByGroup(s);
    expect(cold).toMatchObject({
      liveness: "cold",
      archiveStatus: "available",
      selectedRevision: cold?.archiveRevision,
    });

    const next = await w.leases.acquire({ ...s, kind: "viewer", holderId: "v" });
    expect(next.role).toBe("spawner");
    const begun = await w.recovery.beginRematerialization({
      workspaceId: s.workspaceId,
      leaseId: lease.id,
      expectedEpoch: next.lease.epoch,
      rematerializationId: crypto.randomUUID(),
    });
    expect(begun).toMatchObject({
      outcome: "started",
      lease: { selectedRevision: cold?.archiveRevision, restoreStatus: "restoring" },
    });
  });

  it("leaves a lease draining when capture is unavailable or fails, and drains it on a later sweep", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLease(w, s, "box-u");
    await settledWrite(w, { session: s, lease });
    await releaseWarmHolder(w, lease);
    w.clock.advance(w.config.idleGraceMs);

    w.drainPort.captureMode("unavailable");
    expect((await w.reaper.sweepOnce()).drains).toEqual([
      { leaseId: lease.id, result: "deferred", detail: "archive store offline" },
    ]);
    w.drainPort.captureMode("fail");
    expect((await w.reaper.sweepOnce()).drains).toMatchObject([
      { leaseId: lease.id, result: "deferred" },
    ]);
    expect(w.drainPort.stops).toEqual([]);
    expect(await w.leases.readByGroup(s)).toMatchObject({
      liveness: "draining",
      instanceId: "box-u",
    });

    w.drainPort.captureMode("capture");
    expect((await w.reaper.sweepOnce()).drains).toEqual([{ leaseId: lease.id, result: "cold" }]);
    expect(w.drainPort.stops).toEqual(["box-u"]);
  });

  it("a park that fails after the capture published leaves the lease draining, the sweep going on; the next sweep parks it without a capture", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLease(w, s, "box-p");
    await settledWrite(w, { session: s, lease });
    await releaseWarmHolder(w, lease);
    w.clock.advance(w.config.idleGraceMs);
    // The first park fails (its box suspended, its confirmation lost); from then on the box
    // cannot be captured: only a box that serves can.
    let parks = 0;
    const port = w.drainPort;
    const reaper = new ReaperSystem({
      resources: { db: w.db, clock: w.clock, config: w.config },
      drainPort: {
        capture: (drained, actor) =>
          parks === 0
            ? port.capture(drained, actor)
            : Promise.resolve({ kind: "unavailable", reason: "box is suspended" }),
        stop: (drained) => port.stop(drained),
        park: (drained) =>
          ++parks === 1 ? Promise.reject(new Error("pod did not stop")) : port.park(drained),
      },
    });
    expect((await reaper.sweepOnce()).drains).toEqual([
      { leaseId: lease.id, result: "deferred", detail: "park failed: pod did not stop" },
    ]);
    expect(await w.leases.readByGroup(s)).toMatchObject({
      liveness: "draining",
      instanceId: "box-p",
      archiveComplete: true,
    });
    // Its claim was released: the next sweep takes it at once, and parks it.
    expect((await reaper.sweepOnce()).drains).toEqual([{ leaseId: lease.id, result: "cold" }]);
    expect(port.stops).toEqual(["box-p"]);
  });

  it("scenario 32: a crashed worker's turn holder is reaped past the horizon; live and warming holders survive", async () => {
    const w = world.current;
    const dead = await seedSession(w.db);
    const deadLease = await warmLease(w, dead, "box-dead");
    const live = await seedSession(w.db);
    const liveLease = await warmLease(w, live, "box-live");
    const warming = await seedSession(w.db);
    const warmup = await w.leases.acquire({
      ...warming,
      kind: "turn",
      holderId: "turn-attempt:warmup",
    });

    const horizon = w.config.warmingTimeoutMs + w.config.leaseTtlMs;
    for (let elapsed = 0; elapsed < horizon; elapsed += 60 * SECOND) {
      w.clock.advance(60 * SECOND);
      await w.leases.heartbeat({
        workspaceId: live.workspaceId,
        leaseId: liveLease.id,
        kind: "turn",
        holderId: "turn-attempt:first",
        expectedEpoch: 1,
      });
      await w.leases.touch({
        workspaceId: warming.workspaceId,
        leaseId: warmup.lease.id,
        kind: "turn",
        holderId: "turn-attempt:warmup",
      });
    }
    w.clock.advance(SECOND);
    const report = await w.reaper.sweepOnce();

    expect(report.reapedHolders).toBe(1);
    expect(await w.leases.readByGroup(dead)).toMatchObject({
      liveness: "draining",
      holderCount: 0,
    });
    expect(await w.leases.readByGroup(live)).toMatchObject({ liveness: "warm", holderCount: 1 });
    // The warmup missed its own deadline (expired warming, no box), but its holder was kept alive.
    expect(await w.db.leaseHolder.count({ where: { leaseId: warmup.lease.id } })).toBe(1);

    w.clock.advance(w.config.idleGraceMs);
    const drained = await w.reaper.sweepOnce();
    expect(drained.drains).toEqual([{ leaseId: deadLease.id, result: "cold" }]);
    expect(w.drainPort.stops).toEqual(["box-dead"]);
  });

  it("two reapers sweeping the same leases at once never process a lease twice", async () => {
    const w = world.current;
    const leases = [];
    for (let i = 0; i < 12; i += 1) {
      const s = await seedSession(w.db);
      const lease = await warmLease(w, s, `box-${String(i)}`);
      await settledWrite(w, { session: s, lease });
      await releaseWarmHolder(w, lease);
      leases.push(lease.id);
    }
    w.clock.advance(w.config.idleGraceMs);

    // Two reapers, each with its own pool, as two worker processes would sweep.
    const pools = [
      createDbClient({ connectionString: w.url }),
      createDbClient({ connectionString: w.url }),
    ];
    const results = await Promise.all(
      pools.map((db) =>
        new ReaperSystem({
          resources: { db, clock: w.clock, config: w.config },
          drainPort: w.drainPort,
        }).sweepOnce(),
      ),
    ).finally(() => Promise.all(pools.map((db) => db.$disconnect())));

    const drained = results.flatMap((r) => r.drains.map((d) => d.leaseId));
    expect(drained.sort()).toEqual([...leases].sort());
    expect(new Set(w.drainPort.captures).size).toBe(w.drainPort.captures.length);
    expect(w.drainPort.stops.sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `box-${String(i)}`).sort(),
    );
  });

  it("stops a box whose workspace never admitted a write without capturing it (there is nothing to keep)", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLease(w, s, "box-empty");
    await releaseWarmHolder(w, lease);
    w.clock.advance(w.config.idleGraceMs);
    w.drainPort.captureMode("unavailable");

    expect((await w.reaper.sweepOnce()).drains).toEqual([{ leaseId: lease.id, result: "cold" }]);
    expect(w.drainPort.captures).toEqual([]);
    expect(w.drainPort.stops).toEqual(["box-empty"]);
    expect(await w.leases.readByGroup(s)).toMatchObject({
      liveness: "cold",
      archiveStatus: "none",
      restoreStatus: "not_required",
    });
  });

  it("a drain claim outlives its statement: a second reaper with its own pool skips claimed leases", async () => {
    const w = world.current;
    const ids = [];
    for (let i = 0; i < 6; i += 1) {
      const s = await seedSession(w.db);
      const lease = await warmLease(w, s, `claim-${String(i)}`);
      await releaseWarmHolder(w, lease);
      ids.push(lease.id);
    }
    w.clock.advance(w.config.idleGraceMs);
    const pools = [
      createDbClient({ connectionString: w.url }),
      createDbClient({ connectionString: w.url }),
    ];
    try {
      const [first, second] = pools.map((db) => w.on(db).sweeps);
      const claimedByFirst =
        (await first?.claimDrainable({ claimId: crypto.randomUUID(), claimTtlMs: 60_000 })) ?? [];
      const claimedBySecond =
        (await second?.claimDrainable({ claimId: crypto.randomUUID(), claimTtlMs: 60_000 })) ?? [];
      expect(claimedByFirst.map((l) => l.id).sort()).toEqual([...ids].sort());
      expect(claimedBySecond).toEqual([]);

      // A reaper that died mid-drain: once its claim expires, another takes the leases over.
      w.clock.advance(60 * SECOND);
      const takenOver =
        (await second?.claimDrainable({ claimId: crypto.randomUUID(), claimTtlMs: 60_000 })) ?? [];
      expect(takenOver.map((l) => l.id).sort()).toEqual([...ids].sort());
    } finally {
      await Promise.all(pools.map((db) => db.$disconnect()));
    }
  });

  it("never stops a box whose capture could not be published (writes in flight)", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLease(w, s, "box-inflight");
    const admission = await w.admissions.admit({
      ...s,
      leaseId: lease.id,
      expectedEpoch: 1,
      instanceId: "box-inflight",
      holderKind: "turn",
      holderId: "turn-attempt:first",
      routeTargetId: null,
      routeEpoch: 0,
      operation: "exec",
    });
    expect(admission.admitted).toBe(true);
    await releaseWarmHolder(w, lease);
    w.clock.advance(w.config.idleGraceMs);

    expect((await w.reaper.sweepOnce()).drains).toEqual([
      { leaseId: lease.id, result: "deferred", detail: "admissions_unsettled" },
    ]);
    expect(w.drainPort.stops).toEqual([]);
  });
});

describe("timings from the environment", () => {
  it("scenario 36: refuses a reaper period that is not shorter than the viewer TTL", () => {
    const parsed = sandboxEnvSchema.safeParse({
      BERTH_REAPER_PERIOD_MS: "90000",
      BERTH_VIEWER_TTL_MS: "90000",
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toMatchObject([
      {
        path: ["BERTH_REAPER_PERIOD_MS"],
        message: "must be shorter than BERTH_VIEWER_TTL_MS (90000 ms)",
      },
    ]);
  });

  it("refuses a checkpoint deadline shorter than its quiet period", () => {
    const parsed = sandboxEnvSchema.safeParse({
      BERTH_CHECKPOINT_QUIET_MS: "60000",
      BERTH_CHECKPOINT_MAX_MS: "59999",
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toMatchObject([
      {
        path: ["BERTH_CHECKPOINT_MAX_MS"],
        message: "must be at least BERTH_CHECKPOINT_QUIET_MS (60000 ms)",
      },
    ]);
    expect(
      sandboxEnvSchema.parse({
        BERTH_CHECKPOINT_QUIET_MS: "60000",
        BERTH_CHECKPOINT_MAX_MS: "60000",
      }),
    ).toMatchObject({ BERTH_CHECKPOINT_MAX_MS: 60_000 });
  });

  it("defaults to lease TTL 90 s, warming 600 s, grace 900 s, reaper 30 s, 5 archives, 30 s quiet, 5 min checkpoint deadline, 24 h suspended boxes, local boxes (kube image berth-boxd)", () => {
    expect(sandboxEnvSchema.parse({})).toEqual({
      BERTH_LEASE_TTL_MS: 90_000,
      BERTH_WARMING_TIMEOUT_MS: 600_000,
      BERTH_IDLE_GRACE_MS: 900_000,
      BERTH_VIEWER_TTL_MS: 90_000,
      BERTH_REAPER_PERIOD_MS: 30_000,
      BERTH_ARCHIVE_KEEP: 5,
      BERTH_CHECKPOINT_QUIET_MS: 30_000,
      BERTH_CHECKPOINT_MAX_MS: 300_000,
      BERTH_KUBE_SUSPENDED_TTL_MS: 86_400_000,
      BERTH_BACKEND: "local",
      BERTH_KUBE_IMAGE: "berth-boxd",
    });
  });
});
