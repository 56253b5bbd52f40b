// Issue 32: once isolation works, every local lease whose box runs unisolated is asked to rotate,
// so its next drain replaces the box. Real Postgres; boxes in memory (the world's drain port).
import { describe, expect, it } from "vitest";
import type { RecordedConfinement } from "../lease/confinement.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import { IsolationRotationSystem } from "../reaper/isolationRotation.ts";
import { BackendError } from "../spawner/backend.ts";
import {
  leaseEvents,
  releaseWarmHolder,
  seedSession,
  useLeaseWorld,
  warmLeaseWith,
  type LeaseWorld,
} from "./leaseFixture.ts";

const world = useLeaseWorld();

const limits = { processes: null, memoryBytes: null, cpuWeight: null, diskBytes: null };
const unisolated: RecordedConfinement = { isolation: "none", network: "host", limits };
const isolated: RecordedConfinement = { isolation: "bubblewrap", network: "none", limits };

function rotationOver(
  w: LeaseWorld,
  isolationNow: () => Promise<"bubblewrap" | "none"> = () => Promise.resolve("bubblewrap"),
) {
  return new IsolationRotationSystem({
    resources: { db: w.db, clock: w.clock, config: w.config },
    isolationNow,
  });
}

/** A warm lease of a new session whose box was given `confinement` (undefined: unknown). */
async function warmBox(
  w: LeaseWorld,
  box: { name: string; confinement?: RecordedConfinement; backend?: "local" | "kubernetes" },
): Promise<LeaseSnapshot> {
  const s = await seedSession(w.db, box.backend ?? "local");
  return warmLeaseWith(w, s, {
    instanceId: `box-${box.name}`,
    ...(box.confinement === undefined ? {} : { confinement: box.confinement }),
  });
}

/** A lease of a box left idle: its last holder gone, draining within its idle grace. */
async function idleBox(
  w: LeaseWorld,
  box: { name: string; confinement?: RecordedConfinement; backend?: "local" | "kubernetes" },
): Promise<LeaseSnapshot> {
  const lease = await warmBox(w, box);
  await releaseWarmHolder(w, lease);
  return lease;
}

async function row(w: LeaseWorld, lease: LeaseSnapshot) {
  return w.db.sandboxLease.findUniqueOrThrow({ where: { id: lease.id } });
}

describe("the rotation step, once isolation works", () => {
  it("asks exactly the idle unisolated (or unknown) local boxes' leases, once, and the reaper replaces them at once", async () => {
    const w = world.current;
    const unisolatedIdle = await idleBox(w, { name: "bare", confinement: unisolated });
    const unknownIdle = await idleBox(w, { name: "old" });
    const isolatedIdle = await idleBox(w, { name: "wrapped", confinement: isolated });
    const unknownPod = await idleBox(w, { name: "pod", backend: "kubernetes" });
    const unisolatedInUse = await warmBox(w, { name: "busy", confinement: unisolated });
    const before = await row(w, unisolatedIdle);
    expect(before).toMatchObject({ liveness: "draining", rotationRequestedAt: null });
    expect(before.expiresAt.getTime()).toBeGreaterThan((await w.clock.now()).getTime());

    const report = await rotationOver(w).sweepOnce();

    expect(report.kind).toBe("asked");
    const asked = report.kind === "asked" ? report.leases : [];
    expect(asked.map((lease) => lease.id).sort()).toEqual(
      [unisolatedIdle.id, unknownIdle.id].sort(),
    );
    const now = await w.clock.now();
    for (const lease of asked) {
      // Immediately drainable, at the same epoch, with one event saying why.
      expect(lease).toMatchObject({
        liveness: "draining",
        rotationRequestedAt: now,
        expiresAt: now,
      });
      expect(lease.epoch).toBe(unisolatedIdle.epoch);
    }
    const rotateEvents = async (lease: LeaseSnapshot) =>
      (await leaseEvents(w.db, lease.id)).filter((event) => event.transition === "rotate");
    expect(await rotateEvents(unisolatedIdle)).toMatchObject([
      { fromState: "draining", toState: "draining", reason: "box_unisolated" },
    ]);
    expect(await rotateEvents(unknownIdle)).toMatchObject([{ reason: "box_isolation_unknown" }]);
    for (const untouched of [isolatedIdle, unknownPod, unisolatedInUse]) {
      expect(await row(w, untouched)).toMatchObject({ rotationRequestedAt: null });
      expect(await rotateEvents(untouched)).toEqual([]);
    }

    // Idempotent: a second sweep asks nothing more, and logs nothing more.
    expect(await rotationOver(w).sweepOnce()).toEqual({ kind: "asked", leases: [] });
    expect(await rotateEvents(unisolatedIdle)).toHaveLength(1);

    // An arrival cannot re-arm the old box now; the reaper's sweep drains the asked leases at once
    // (the isolated one keeps its idle grace), and the next arrival spawns a new box.
    const session = { workspaceId: unisolatedIdle.workspaceId };
    const arrival = await w.leases.acquire({
      ...session,
      sessionId: await sessionOf(w, unisolatedIdle),
      kind: "viewer",
      holderId: "viewer:late",
    });
    expect(arrival).toMatchObject({ role: "fenced", reason: "rotation_in_progress" });
    const swept = await w.reaper.sweepOnce();
    expect(swept.drains.map((drain) => [drain.leaseId, drain.result]).sort()).toEqual(
      [
        [unisolatedIdle.id, "cold"],
        [unknownIdle.id, "cold"],
      ].sort(),
    );
    expect(await row(w, unisolatedIdle)).toMatchObject({
      liveness: "cold",
      instanceId: null,
      boxIsolation: null,
      rotationRequestedAt: null,
    });
    expect(await row(w, isolatedIdle)).toMatchObject({ liveness: "draining" });
    const next = await w.leases.acquire({
      ...session,
      sessionId: await sessionOf(w, unisolatedIdle),
      kind: "viewer",
      holderId: "viewer:late",
    });
    expect(next.role).toBe("spawner");
  });

  it("asks a box in use only at its next drain, so no one using it is cut off", async () => {
    const w = world.current;
    const inUse = await warmBox(w, { name: "used", confinement: unisolated });
    const rotation = rotationOver(w);
    expect(await rotation.sweepOnce()).toEqual({ kind: "asked", leases: [] });
    // Still warm and open to arrivals.
    const arrival = await w.leases.acquire({
      workspaceId: inUse.workspaceId,
      sessionId: await sessionOf(w, inUse),
      kind: "viewer",
      holderId: "viewer:tab",
    });
    expect(arrival).toMatchObject({ role: "attached" });
    await w.leases.release({
      workspaceId: inUse.workspaceId,
      leaseId: inUse.id,
      kind: "viewer",
      holderId: "viewer:tab",
    });
    await releaseWarmHolder(w, inUse);

    const report = await rotation.sweepOnce();
    expect(report.kind === "asked" ? report.leases.map((lease) => lease.id) : []).toEqual([
      inUse.id,
    ]);
  });

  it("two workers sweeping at once ask each lease once", async () => {
    const w = world.current;
    const leases = await Promise.all(
      ["a", "b", "c", "d"].map((name) => idleBox(w, { name, confinement: unisolated })),
    );
    const reports = await Promise.all([rotationOver(w).sweepOnce(), rotationOver(w).sweepOnce()]);
    const asked = reports.flatMap((report) => (report.kind === "asked" ? report.leases : []));
    expect(asked.map((lease) => lease.id).sort()).toEqual(leases.map((lease) => lease.id).sort());
    const events = await w.db.leaseEvent.count({
      where: { leaseId: { in: leases.map((lease) => lease.id) }, transition: "rotate" },
    });
    expect(events).toBe(leases.length);
  });
});

describe("the rotation step, where isolation does not work", () => {
  it("asks nothing where a new box would run unisolated too, or would not start", async () => {
    const w = world.current;
    const lease = await idleBox(w, { name: "stays", confinement: unisolated });

    expect(await rotationOver(w, () => Promise.resolve("none")).sweepOnce()).toEqual({
      kind: "unisolated_here",
    });
    const refused = new BackendError({ code: "unavailable", message: "bwrap does not work" });
    expect(await rotationOver(w, () => Promise.reject(refused)).sweepOnce()).toEqual({
      kind: "isolation_unavailable",
      reason: "bwrap does not work",
    });
    expect(await row(w, lease)).toMatchObject({ liveness: "draining", rotationRequestedAt: null });
  });
});

async function sessionOf(w: LeaseWorld, lease: LeaseSnapshot): Promise<string> {
  const session = await w.db.session.findFirstOrThrow({
    where: { workspaceId: lease.workspaceId, sandboxGroupId: lease.sandboxGroupId },
  });
  return session.id;
}
