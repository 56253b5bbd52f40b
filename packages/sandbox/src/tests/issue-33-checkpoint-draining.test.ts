import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ArchiveRestorer } from "../archives/archiveRestorer.ts";
import { listArchives } from "../archives/archiveRows.ts";
import { CheckpointSystem } from "../archives/checkpointSystem.ts";
import { FilesystemArchiveStore } from "../archives/filesystemArchiveStore.ts";
import { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import type { LocalBackend } from "../backends/local/localBackend.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import { backendDrainPort } from "../reaper/backendDrainPort.ts";
import type { DrainPort } from "../reaper/drainPort.ts";
import { ReaperSystem } from "../reaper/reaperSystem.ts";
import { BoxAccess, type BoxCall } from "../services/boxAccess.ts";
import type { Backend } from "../spawner/backend.ts";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import { ManualClock } from "../testing/manualClock.ts";
import {
  leaseEvents,
  releaseWarmHolder,
  seedSession,
  settledWrite,
  useLeaseWorld,
  type LeaseWorld,
  type SeededSession,
  warmLease,
} from "./leaseFixture.ts";
import { boxProcessesGone, RacepointBackend, useLocalBackend } from "./spawnerFixture.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";

// Issue 33, item 1: a session driven by API calls is draining between them, and its writes
// waited unarchived for the whole idle grace. Real Postgres, real local boxes, a manual clock.

const QUIET_MS = 30_000;
const MAX_MS = 120_000;

const world = useLeaseWorld();
const local = useLocalBackend();
let backend: LocalBackend;
let store: FilesystemArchiveStore;

beforeAll(() => {
  backend = local.backend;
  store = new FilesystemArchiveStore({ root: join(local.dataDir, "archives") });
});

const resourcesOf = (w: LeaseWorld) => ({ db: w.db, clock: w.clock, config: w.config });

function archiverOf(w: LeaseWorld, over: Backend = backend): WorkspaceArchiver {
  return new WorkspaceArchiver({
    resources: resourcesOf(w),
    backends: BackendRegistry.of(over),
    store,
  });
}

function checkpointsOf(w: LeaseWorld, archiver = archiverOf(w)): CheckpointSystem {
  return new CheckpointSystem({
    resources: resourcesOf(w),
    archiver,
    quietMs: QUIET_MS,
    maxMs: MAX_MS,
  });
}

/** Box services as the API runs them: every call its own `direct` holder, released after it. */
function accessOf(w: LeaseWorld): BoxAccess {
  const resources = resourcesOf(w);
  const restorer = new ArchiveRestorer({ db: w.db, store });
  const spawner = new SpawnerSystem({
    resources,
    backends: BackendRegistry.of(backend),
    restorer,
    readinessTimeoutMs: 10_000,
  });
  return new BoxAccess({ resources, backends: BackendRegistry.of(backend), spawner, pollMs: 50 });
}

function writeCall(s: SeededSession): BoxCall {
  return { ...s, requestId: crypto.randomUUID(), operation: { name: "fs.write", writes: true } };
}

/** One CLI call writing `path`; resolves once its admission settled and its holder was released. */
async function cliWrite(
  access: BoxAccess,
  s: SeededSession,
  file: { path: string; content: string },
): Promise<void> {
  await access.run(writeCall(s), ({ box }) => box.write({ ...file, expectedVersion: null }));
  await access.settled();
}

async function current(w: LeaseWorld, s: SeededSession): Promise<LeaseSnapshot> {
  const lease = await w.leases.readByGroup(s);
  if (lease === null) throw new Error("no lease");
  return lease;
}

async function manifestRevision(lease: LeaseSnapshot): Promise<string> {
  return (await (await backend.connect(lease.instanceId ?? "")).manifest()).revision;
}

/** A promise a test resolves by hand: a racepoint one side waits on. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe("issue 33: the checkpoint archives writes made between API calls", () => {
  it("a write left on a draining lease with no holder is archived once quiet, not before; the lease keeps draining on its deadline", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const access = accessOf(w);
    const checkpoints = checkpointsOf(w);
    await cliWrite(access, s, { path: "late.txt", content: "written by a CLI call" });

    const drained = await current(w, s);
    expect(drained).toMatchObject({
      liveness: "draining",
      holderCount: 0,
      workspaceGeneration: 1,
      archiveComplete: false,
    });

    w.clock.advance(QUIET_MS - 1);
    expect(await checkpoints.sweepOnce()).toEqual([]);
    w.clock.advance(1);
    expect(await checkpoints.sweepOnce()).toEqual([{ leaseId: drained.id, result: "published" }]);

    // Archived, and nothing else moved: no holder arrived, no re-arm, the same deadline.
    const after = await current(w, s);
    expect(after).toMatchObject({
      liveness: "draining",
      epoch: drained.epoch,
      expiresAt: drained.expiresAt,
      holderCount: 0,
      archiveGeneration: 1,
      archiveComplete: true,
      archiveRevision: await manifestRevision(drained),
    });
    expect(await w.db.leaseHolder.count({ where: { leaseId: drained.id } })).toBe(0);
    expect((await leaseEvents(w.db, drained.id)).at(-1)).toMatchObject({
      transition: "publish_archive",
      fromState: "draining",
      toState: "draining",
      epochBefore: drained.epoch,
      epochAfter: drained.epoch,
    });
    expect(await checkpoints.sweepOnce()).toEqual([]);

    // The grace ends when it was due to, not before: then the reaper's drain finds that
    // revision stored already.
    const reaper = new ReaperSystem({
      resources: resourcesOf(w),
      drainPort: backendDrainPort({
        backends: BackendRegistry.of(backend),
        archiver: archiverOf(w),
      }),
    });
    w.clock.advance(w.config.idleGraceMs - QUIET_MS - 1);
    expect((await reaper.sweepOnce()).drains).toEqual([]);
    w.clock.advance(1);
    expect((await reaper.sweepOnce()).drains).toEqual([{ leaseId: drained.id, result: "cold" }]);
    expect(await current(w, s)).toMatchObject({
      liveness: "cold",
      epoch: drained.epoch + 1,
      restoreStatus: "pending",
      selectedRevision: after.archiveRevision,
    });
    expect(await listArchives(w.db, drained.id)).toMatchObject([{ generation: 1 }]);
  });

  it("a trickle of writes, never quiet, is archived once its oldest unarchived write is BERTH_CHECKPOINT_MAX_MS old", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const access = accessOf(w);
    const checkpoints = checkpointsOf(w);
    const GAP_MS = 20_000; // shorter than the quiet period
    let writes = 0;
    const trickle = async () => {
      writes += 1;
      await cliWrite(access, s, { path: `note-${String(writes)}.txt`, content: String(writes) });
    };
    /**
     * From the oldest unarchived write, a write every GAP_MS (never quiet), with nothing
     * claimed, until the last write lands just as the oldest turns MAX_MS old.
     */
    const trickleUntilDue = async () => {
      await trickle();
      for (let elapsed = GAP_MS; elapsed < MAX_MS; elapsed += GAP_MS) {
        w.clock.advance(GAP_MS);
        await trickle();
        expect(await checkpoints.sweepOnce()).toEqual([]);
      }
      w.clock.advance(GAP_MS - 1);
      expect(await checkpoints.sweepOnce()).toEqual([]);
      w.clock.advance(1);
      await trickle();
    };

    await trickleUntilDue();
    // Claimed although its newest write is 0 ms old: the oldest one is MAX_MS old.
    const leaseId = (await current(w, s)).id;
    expect(await checkpoints.sweepOnce()).toEqual([{ leaseId, result: "published" }]);
    const archived = await current(w, s);
    expect(archived).toMatchObject({
      liveness: "draining",
      holderCount: 0,
      workspaceGeneration: 7,
      archiveGeneration: 7,
      archiveRevision: await manifestRevision(archived),
    });

    // The deadline runs again from the oldest write the archive does not hold.
    w.clock.advance(GAP_MS);
    await trickleUntilDue();
    expect(await checkpoints.sweepOnce()).toEqual([{ leaseId, result: "published" }]);
    expect(await current(w, s)).toMatchObject({
      workspaceGeneration: 14,
      archiveGeneration: 14,
      archiveComplete: true,
    });
  });

  it("past the deadline, a write in flight still holds the checkpoint; once it settles the deadline claims the lease, its newest write 0 ms old", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const access = accessOf(w);
    const checkpoints = checkpointsOf(w);
    await cliWrite(access, s, { path: "first.txt", content: "one" });
    const leaseId = (await current(w, s)).id;
    w.clock.advance(MAX_MS);

    const admitted = deferred();
    const proceed = deferred();
    const inFlight = access.run(writeCall(s), async ({ box }) => {
      admitted.resolve();
      await proceed.promise;
      return box.write({ path: "second.txt", content: "two", expectedVersion: null });
    });
    await admitted.promise;
    // A capture under it could not be published (every write <= g settled): not even claimed.
    expect(await checkpoints.sweepOnce()).toEqual([]);

    proceed.resolve();
    await inFlight;
    await access.settled();
    expect(await checkpoints.sweepOnce()).toEqual([{ leaseId, result: "published" }]);
    expect(await current(w, s)).toMatchObject({
      liveness: "draining",
      workspaceGeneration: 2,
      archiveGeneration: 2,
    });
  });

  it("a checkpoint and the reaper's drain of one draining lease take turns: the box stops with its last capture published, cold at epoch+1", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const access = accessOf(w);
    await cliWrite(access, s, { path: "v.txt", content: "one" });
    const drained = await current(w, s);
    const box = await backend.connect(drained.instanceId ?? "");
    const checkpointed = (await box.manifest()).revision;

    // The checkpoint captures late in the grace and is held just before it publishes.
    const captured = deferred();
    const publish = deferred();
    const held = new RacepointBackend(backend, {
      afterCapture: async () => {
        captured.resolve();
        await publish.promise;
      },
    });
    w.clock.advance(w.config.idleGraceMs - 1);
    const checkpointing = checkpointsOf(w, archiverOf(w, held)).sweepOnce();
    await captured.promise;

    // Meanwhile a process the box runs changes a file (no write through Berth), and the grace
    // ends. A drain must capture what the box holds when it stops.
    const changed = await box.exec({ argv: ["sh", "-c", "printf two > v.txt"] });
    expect(changed.exitCode).toBe(0);
    const last = (await box.manifest()).revision;
    expect(last).not.toBe(checkpointed);
    w.clock.advance(1);

    // The drain's stop lets the held checkpoint publish first, the worst moment for it to.
    const real = backendDrainPort({
      backends: BackendRegistry.of(backend),
      archiver: archiverOf(w),
    });
    const drainPort: DrainPort = {
      capture: (lease, actor) => real.capture(lease, actor),
      stop: async (lease) => {
        publish.resolve();
        await checkpointing;
        await real.stop(lease);
      },
    };
    const reaper = new ReaperSystem({ resources: resourcesOf(w), drainPort });
    const whileHeld = await reaper.sweepOnce();
    publish.resolve();
    expect(await checkpointing).toEqual([{ leaseId: drained.id, result: "published" }]);
    const afterwards = await reaper.sweepOnce();

    expect(await current(w, s)).toMatchObject({
      liveness: "cold",
      epoch: drained.epoch + 1,
      restoreStatus: "pending",
      archiveGeneration: 1,
      archiveComplete: true,
      archiveRevision: last,
      selectedRevision: last,
    });
    expect(await boxProcessesGone(drained.instanceId ?? "")).toBe(true);
    // The checkpoint held the lease, so the first sweep left it; the next one drained it.
    expect(whileHeld.drains).toEqual([]);
    expect(afterwards.drains).toEqual([{ leaseId: drained.id, result: "cold" }]);
    // Both captures are of generation 1; the checkpoint's was published first, the drain's last.
    const archives = await listArchives(w.db, drained.id);
    expect(archives.map((a) => [a.revision, a.generation]).sort()).toEqual(
      [
        [checkpointed, 1],
        [last, 1],
      ].sort(),
    );
    const events = await w.db.leaseEvent.findMany({
      where: { leaseId: drained.id, transition: { in: ["publish_archive", "drain_cold"] } },
      orderBy: { id: "asc" },
      select: { transition: true, actor: true, reason: true },
    });
    expect(events).toEqual([
      { transition: "publish_archive", actor: "checkpoint", reason: checkpointed },
      { transition: "publish_archive", actor: "reaper", reason: last },
      { transition: "drain_cold", actor: "reaper", reason: null },
    ]);
  });

  it("a worker whose clock still sees the grace running does not claim a lease another worker's reaper is draining", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const warm = await warmLease(w, s, `box-${crypto.randomUUID()}`);
    await settledWrite(w, { session: s, lease: warm });
    await releaseWarmHolder(w, warm);
    const start = await w.clock.now();
    w.clock.advance(w.config.idleGraceMs);
    const [claimed] = await w.sweeps.claimDrainable({
      claimId: crypto.randomUUID(),
      claimTtlMs: 60_000,
    });
    if (claimed === undefined) throw new Error("the reaper claimed nothing");
    expect(claimed).toMatchObject({ id: warm.id, liveness: "draining" });

    // Its now was read a moment before: quiet, and (to it) still inside the grace.
    const lagging = new ManualClock(new Date(start.getTime() + w.config.idleGraceMs - 1));
    const checkpoints = new CheckpointSystem({
      resources: { db: w.db, clock: lagging, config: w.config },
      archiver: archiverOf(w),
      quietMs: QUIET_MS,
      maxMs: MAX_MS,
    });
    expect(await checkpoints.sweepOnce()).toEqual([]);
    // Once the drain claim is given back, the same worker would claim it (control).
    await w.sweeps.releaseDrainClaim(claimed);
    expect(await checkpoints.sweepOnce()).toEqual([
      { leaseId: warm.id, result: "provider_missing" },
    ]);
  });
});
