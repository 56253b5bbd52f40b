import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FilesystemArchiveStore } from "../archives/filesystemArchiveStore.ts";
import { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import type { LocalBackend } from "../backends/local/localBackend.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import { backendDrainPort } from "../reaper/backendDrainPort.ts";
import { ReaperSystem } from "../reaper/reaperSystem.ts";
import { BackendError, type Backend } from "../spawner/backend.ts";
import { OrphanSweepSystem } from "../spawner/orphanSweep.ts";
import { SpawnError } from "../spawner/spawnError.ts";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import { ManualClock } from "../testing/manualClock.ts";
import {
  concurrently,
  seedSession,
  useLeaseWorld,
  type LeaseWorld,
  type SeededSession,
} from "./leaseFixture.ts";
import { boxProcessesGone, killBox, RacepointBackend, useLocalBackend } from "./spawnerFixture.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";
import { localExecutionProfile } from "../spawner/executionProfile.ts";

const world = useLeaseWorld();
const local = useLocalBackend();
let backend: LocalBackend;

beforeAll(() => {
  backend = local.backend;
});

function spawnerOver(w: LeaseWorld, over: Backend) {
  return new SpawnerSystem({
    resources: { db: w.db, clock: w.clock, config: w.config },
    backends: BackendRegistry.of(over),
    readinessTimeoutMs: 2_000,
  });
}

/** The real drain port: captures through the archiver into a store under the test's data dir. */
function drainPortOver(w: LeaseWorld) {
  const resources = { db: w.db, clock: w.clock, config: w.config };
  const store = new FilesystemArchiveStore({ root: join(local.dataDir, "archives") });
  return backendDrainPort({
    backends: BackendRegistry.of(backend),
    archiver: new WorkspaceArchiver({ resources, backends: BackendRegistry.of(backend), store }),
  });
}

async function acquireSpawner(w: LeaseWorld, s: SeededSession): Promise<LeaseSnapshot> {
  const outcome = await w.leases.acquire({
    ...s,
    kind: "direct",
    holderId: `direct:${crypto.randomUUID()}`,
  });
  if (outcome.role !== "spawner") throw new Error(`expected spawner, got ${outcome.role}`);
  return outcome.lease;
}

/** The row's closing check: a new acquire spawns, and a real box comes up warm. */
async function expectRecovers(w: LeaseWorld, s: SeededSession): Promise<void> {
  const lease = await acquireSpawner(w, s);
  const box = await spawnerOver(w, backend).establish(lease);
  expect(box.lease).toMatchObject({ liveness: "warm", instanceId: box.instanceId });
}

async function boxesOf(leaseId: string) {
  return (await backend.inventory()).filter((box) => box.metadata.leaseId === leaseId);
}

describe("the spawner over the local backend", () => {
  it("20 concurrent cold acquires on one group create exactly one box, which runs commands", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const { results, backendPids } = await concurrently(w.db, { count: 20 }, (tx, i) =>
      w.on(tx).leases.acquire({ ...s, kind: "viewer", holderId: `v${String(i)}` }),
    );
    expect(backendPids).toBeGreaterThanOrEqual(10);
    const spawners = results.filter((r) => r.role === "spawner");
    expect(spawners).toHaveLength(1);

    const box = await spawnerOver(w, backend).establish(
      spawners[0]?.lease ?? results[0]?.lease ?? ({} as never),
    );

    expect(box.lease).toMatchObject({
      liveness: "warm",
      epoch: 1,
      instanceId: box.instanceId,
      holderCount: 20,
    });
    expect((await boxesOf(box.lease.id)).map((b) => b.instanceId)).toEqual([box.instanceId]);
    const client = await backend.connect(box.instanceId);
    expect(await client.exec({ argv: ["sh", "-c", "echo hello-$((6*7))"] })).toMatchObject({
      exitCode: 0,
      stdout: "hello-42\n",
    });
  });
});

describe("the failure table", () => {
  it("create throws: no box, cold at epoch+1", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await acquireSpawner(w, s);
    const failing = new RacepointBackend(backend, {
      createFails: new BackendError({ code: "capacity", message: "no room for another box" }),
    });

    const failure = spawnerOver(w, failing).establish(lease);

    await expect(failure).rejects.toBeInstanceOf(SpawnError);
    await expect(failure).rejects.toMatchObject({
      code: "create_failed",
      lease: { liveness: "cold", epoch: 1 },
    });
    expect(await boxesOf(lease.id)).toEqual([]);
    await expectRecovers(w, s);
  });

  it.each([
    ["record", "afterCreate"],
    ["commit", "beforeConnect"],
  ] as const)(
    "%s loses the race: the box is terminated, the row untouched",
    async (_step, racepoint) => {
      const w = world.current;
      const s = await seedSession(w.db);
      const lease = await acquireSpawner(w, s);
      const fence = { workspaceId: s.workspaceId, leaseId: lease.id, expectedEpoch: lease.epoch };
      let created = "";
      let rowAfterRival: LeaseSnapshot | null = null;
      // A rival rolls the warming epoch back at that exact step of the spawn.
      const racing = new RacepointBackend(backend, {
        [racepoint]: async (instanceId: string) => {
          created = instanceId;
          rowAfterRival = (
            await w.warming.failWarming({ ...fence, terminated: false, actor: "rival" })
          ).lease;
        },
      });

      await expect(spawnerOver(w, racing).establish(lease)).rejects.toMatchObject({
        code: "superseded",
      });

      expect(await boxProcessesGone(created)).toBe(true);
      expect(await boxesOf(lease.id)).toEqual([]);
      expect(await w.leases.readByGroup(s)).toEqual(rowAfterRival);
      await expectRecovers(w, s);
    },
  );

  it("readiness fails: the box is terminated, cold at epoch+1", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await acquireSpawner(w, s);
    let created = "";
    const dying = new RacepointBackend(backend, {
      afterCreate: async (instanceId) => {
        created = instanceId;
        await killBox(instanceId);
      },
    });

    await expect(spawnerOver(w, dying).establish(lease)).rejects.toMatchObject({
      code: "readiness_failed",
      lease: { liveness: "cold", epoch: 1, instanceId: null },
    });
    expect(await boxProcessesGone(created)).toBe(true);
    expect(await boxesOf(lease.id)).toEqual([]);
    await expectRecovers(w, s);
  });

  it("termination not confirmed: the box is left warming with its instance; the reaper stops it", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await acquireSpawner(w, s);
    let created = "";
    const stubborn = new RacepointBackend(backend, {
      afterCreate: async (instanceId) => {
        created = instanceId;
        await killBox(instanceId);
      },
      terminateFailsOnce: true,
    });

    await expect(spawnerOver(w, stubborn).establish(lease)).rejects.toMatchObject({
      code: "termination_unconfirmed",
    });
    expect(await w.leases.readByGroup(s)).toMatchObject({
      liveness: "warming",
      epoch: 0,
      instanceId: created,
    });

    w.clock.advance(w.config.warmingTimeoutMs + 1_000);
    const reaper = new ReaperSystem({
      resources: { db: w.db, clock: w.clock, config: w.config },
      drainPort: drainPortOver(w),
    });
    const report = await reaper.sweepOnce();

    expect(report).toMatchObject({
      expiredWarming: 1,
      drains: [{ leaseId: lease.id, result: "cold" }],
    });
    expect(await boxProcessesGone(created)).toBe(true);
    expect(await boxesOf(lease.id)).toEqual([]);
    await expectRecovers(w, s);
  });

  it("control plane killed between create and record: the orphan sweep terminates the box; the reaper resets the lease", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const lease = await acquireSpawner(w, s);
    const fence = { workspaceId: s.workspaceId, leaseId: lease.id, expectedEpoch: lease.epoch };
    const intent = await w.warming.recordAllocation({
      ...fence,
      allocationId: crypto.randomUUID(),
    });
    const { instanceId } = await backend.create({
      metadata: {
        workspaceId: s.workspaceId,
        leaseId: lease.id,
        epoch: 0,
        allocationId: intent.lease?.allocationId ?? "",
      },
      profile: localExecutionProfile,
    });
    // ...and the spawner dies here, before recording the box.

    w.clock.advance(w.config.warmingTimeoutMs + 1_000);
    const reaper = new ReaperSystem({
      resources: { db: w.db, clock: w.clock, config: w.config },
      drainPort: drainPortOver(w),
    });
    expect((await reaper.sweepOnce()).expiredWarming).toBe(1);
    expect(await w.leases.readByGroup(s)).toMatchObject({
      liveness: "cold",
      epoch: 1,
      instanceId: null,
    });

    // The orphan sweep compares the backend's real creation times with its clock.
    const later = new ManualClock(new Date(Date.now() + w.config.warmingTimeoutMs + 1_000));
    const orphans = await new OrphanSweepSystem({
      resources: { db: w.db, clock: later, config: w.config },
      backends: BackendRegistry.of(backend),
    }).sweepOnce();

    expect(orphans.terminated).toContain(instanceId);
    expect(await boxProcessesGone(instanceId)).toBe(true);
    await expectRecovers(w, s);
  });
});
