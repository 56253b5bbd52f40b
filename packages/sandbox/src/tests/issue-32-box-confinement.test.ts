// Issue 32: the lease records what each box was given — its isolation, network and limits — in
// the step that records the box, the machines view shows it, and it is forgotten with the box.
// Real spawns on the local backend (real boxd, bubblewrap where the machine has it) and Postgres.
import { describe, expect, it } from "vitest";
import { LocalBackend } from "../backends/local/localBackend.ts";
import { probeBubblewrap } from "../backends/local/bubblewrap.ts";
import type { RecordedConfinement } from "../lease/confinement.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import { readMachines } from "../machines/index.ts";
import { noBoxLimits } from "../spawner/backend.ts";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import {
  releaseWarmHolder,
  seedSession,
  useLeaseWorld,
  warmLeaseWith,
  type LeaseWorld,
  type SeededSession,
} from "./leaseFixture.ts";
import { TEST_BOX_SECRET, useLocalBackend } from "./spawnerFixture.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";

const ci = process.env.CI === "true" || process.env.CI === "1";
// Under CI bubblewrap is required, so the bubblewrap case runs (and fails if it is missing).
const bubblewrap = ci || (await probeBubblewrap("bwrap")).ok;

const world = useLeaseWorld();
const local = useLocalBackend();
const NOW = new Date("2026-12-01T12:00:00Z");

function backendWith(isolation: "bubblewrap" | "none"): LocalBackend {
  return new LocalBackend({ dataDir: local.dataDir, secret: TEST_BOX_SECRET, isolation });
}

/** A real spawn of the session's box over `backend`: the lease ends warm. */
async function spawnOver(
  w: LeaseWorld,
  s: SeededSession,
  backend: LocalBackend,
): Promise<LeaseSnapshot> {
  const arrival = await w.leases.acquire({ ...s, kind: "direct", holderId: "direct:spawn" });
  if (arrival.role !== "spawner") throw new Error(`expected spawner, got ${arrival.role}`);
  const spawner = new SpawnerSystem({
    resources: { db: w.db, clock: w.clock, config: w.config },
    backends: BackendRegistry.of(backend),
    readinessTimeoutMs: 10_000,
  });
  return (await spawner.establish(arrival.lease)).lease;
}

/** The lease's box columns as Postgres holds them. */
async function boxColumns(w: LeaseWorld, leaseId: string) {
  return w.db.sandboxLease.findUniqueOrThrow({
    where: { id: leaseId },
    select: {
      instanceId: true,
      boxIsolation: true,
      boxNetwork: true,
      boxMaxProcesses: true,
      boxMemoryBytes: true,
      boxCpuWeight: true,
      boxDiskBytes: true,
    },
  });
}

const unrecorded = {
  boxIsolation: null,
  boxNetwork: null,
  boxMaxProcesses: null,
  boxMemoryBytes: null,
  boxCpuWeight: null,
  boxDiskBytes: null,
};

describe("a spawn records what its box was given", () => {
  it.skipIf(!bubblewrap)(
    "a bubblewrap box: bubblewrap, the network it runs with and its limits; machines shows them",
    async () => {
      const w = world.current;
      const s = await seedSession(w.db);
      const lease = await spawnOver(w, s, backendWith("bubblewrap"));

      const box = (await local.backend.inventory()).find((b) => b.instanceId === lease.instanceId);
      expect(box).toMatchObject({ isolation: "bubblewrap" });
      // Its own loopback, or egress kept off the host: never the host's network.
      expect(["none", "egress"]).toContain(box?.network);
      // What the box's cgroups enforce (and its disk watch), as its record says.
      const limits = box?.limits ?? noBoxLimits;
      expect(limits.processes).toBeGreaterThan(0);
      expect(await boxColumns(w, lease.id)).toEqual({
        instanceId: lease.instanceId,
        boxIsolation: "bubblewrap",
        boxNetwork: box?.network,
        boxMaxProcesses: limits.processes,
        boxMemoryBytes: limits.memoryBytes === null ? null : BigInt(limits.memoryBytes),
        boxCpuWeight: limits.cpuWeight,
        boxDiskBytes: limits.diskBytes === null ? null : BigInt(limits.diskBytes),
      });
      const [machine] = await readMachines(w.db, s, NOW);
      expect(machine).toMatchObject({
        instanceId: lease.instanceId,
        confinement: { isolation: "bubblewrap", network: box?.network, limits },
      });
    },
  );

  it("an unisolated box (isolation none): none and the host's network; machines shows them", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await spawnOver(w, s, backendWith("none"));

    // An unisolated box keeps its limits (its cgroups), only not the isolation.
    const box = (await local.backend.inventory()).find((b) => b.instanceId === lease.instanceId);
    const limits = box?.limits ?? noBoxLimits;
    expect(await boxColumns(w, lease.id)).toMatchObject({
      instanceId: lease.instanceId,
      boxIsolation: "none",
      boxNetwork: "host",
      boxMaxProcesses: limits.processes,
    });
    const [machine] = await readMachines(w.db, s, NOW);
    expect(machine?.confinement).toEqual({ isolation: "none", network: "host", limits });
  });
});

describe("what the lease holds of its box", () => {
  const limited: RecordedConfinement = {
    isolation: "bubblewrap",
    network: "egress",
    limits: {
      processes: 256,
      memoryBytes: 4 * 1024 ** 3,
      cpuWeight: 100,
      // Past 2^32: a bigint column read back exactly.
      diskBytes: 20 * 1024 ** 3 + 1,
    },
  };

  it("shows limits exactly as recorded", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    await warmLeaseWith(w, s, { instanceId: "box-limited", confinement: limited });
    const [machine] = await readMachines(w.db, s, NOW);
    expect(machine?.confinement).toEqual(limited);
  });

  it("is forgotten with the box: a drain to cold clears it with the instance", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLeaseWith(w, s, { instanceId: "box-drained", confinement: limited });
    await releaseWarmHolder(w, lease);
    w.clock.advance(w.config.idleGraceMs);
    const report = await w.reaper.sweepOnce();
    expect(report.drains).toEqual([{ leaseId: lease.id, result: "cold" }]);

    expect(await boxColumns(w, lease.id)).toEqual({ ...unrecorded, instanceId: null });
    const [machine] = await readMachines(w.db, s, NOW);
    expect(machine).toMatchObject({ state: "cold", instanceId: null, confinement: null });
  });

  it("is forgotten with the box: a lost box clears it with the instance", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLeaseWith(w, s, { instanceId: "box-lost", confinement: limited });
    const lost = await w.warming.markInstanceLost({
      workspaceId: s.workspaceId,
      leaseId: lease.id,
      expectedEpoch: lease.epoch,
      instanceId: "box-lost",
      actor: "test",
    });
    expect(lost.outcome).toBe("marked");
    expect(await boxColumns(w, lease.id)).toEqual({ ...unrecorded, instanceId: null });
  });

  it("is unknown (null) for a box recorded without it, as one recorded before this was", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    await warmLeaseWith(w, s, { instanceId: "box-old" });
    const [machine] = await readMachines(w.db, s, NOW);
    expect(machine).toMatchObject({ instanceId: "box-old", confinement: null });
  });

  it("is refused by Postgres half-recorded or beside no instance", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await warmLeaseWith(w, s, { instanceId: "box-whole", confinement: limited });
    // Isolation without its network.
    await expect(
      w.db.$executeRaw`UPDATE sandbox_leases SET box_network = NULL WHERE id = ${lease.id}::uuid`,
    ).rejects.toThrow(/sandbox_leases_box_check/);
    // A limit that is no limit.
    await expect(
      w.db
        .$executeRaw`UPDATE sandbox_leases SET box_max_processes = 0 WHERE id = ${lease.id}::uuid`,
    ).rejects.toThrow(/sandbox_leases_box_limits_check/);
    const cold = await seedSession(w.db);
    const { lease: spawned } = await w.leases.acquire({ ...cold, kind: "direct", holderId: "d" });
    await expect(
      w.db.$executeRaw`UPDATE sandbox_leases SET box_isolation = 'none', box_network = 'host'
                        WHERE id = ${spawned.id}::uuid`,
    ).rejects.toThrow(/sandbox_leases_box_check/);
  });
});
