// Drain on Kubernetes (issue 37): a drained box is captured, then suspended with its disk (the
// Sandbox's operatingMode Suspended, its PVC kept), and the cold lease remembers it. The next
// acquire resumes that very box without hydrating when its disk holds the selected revision; a
// disk that does not (written behind Berth's back) or a Sandbox that is gone is deleted, fenced,
// and the exact revision rematerialized into a new allocation. The suspended-TTL sweep deletes
// an idle suspended box only once its archive covers the workspace. kube-sim over real HTTP,
// real Postgres, the lease world's injected clock.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ArchiveRestorer } from "../archives/archiveRestorer.ts";
import type { FilesystemArchiveStore } from "../archives/filesystemArchiveStore.ts";
import type { ArchiveProgress } from "../archives/progress.ts";
import { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import type { KubernetesBackend } from "../backends/kubernetes/kubernetesBackend.ts";
import {
  SANDBOXES,
  sandboxGone as sandboxGoneIn,
  sandboxMode as sandboxModeIn,
  type KubeBoxWorld,
} from "../backends/kubernetes/tests/kubeBoxWorld.ts";
import { backendDrainPort } from "../reaper/backendDrainPort.ts";
import { ReaperSystem } from "../reaper/reaperSystem.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import { currentLease, download, establishBox, writeInBox, type WarmBox } from "./boxFixture.ts";
import { useKubeArchiveWorld } from "./kubeArchiveFixture.ts";
import { seedSession, useLeaseWorld, type LeaseWorld, type SeededSession } from "./leaseFixture.ts";

const world = useLeaseWorld();
const SUSPENDED_TTL_MS = 3_600_000;
const kubeWorld = useKubeArchiveWorld("kube-drain");
let kube: KubeBoxWorld;
let backend: KubernetesBackend;
let store: FilesystemArchiveStore;
beforeAll(() => {
  ({ kube, backend, store } = kubeWorld.current);
});

const resourcesOf = (w: LeaseWorld) => ({ db: w.db, clock: w.clock, config: w.config });
const registry = () => BackendRegistry.of(backend, kube.profile);

function spawnerOf(w: LeaseWorld, phases: string[] = []) {
  return new SpawnerSystem({
    resources: resourcesOf(w),
    backends: registry(),
    restorer: new ArchiveRestorer({
      db: w.db,
      store,
      onProgress: (event: ArchiveProgress) => phases.push(event.phase),
    }),
    readinessTimeoutMs: 30_000,
  });
}

function reaperOf(w: LeaseWorld) {
  const archiver = new WorkspaceArchiver({
    resources: resourcesOf(w),
    backends: registry(),
    store,
  });
  return new ReaperSystem({
    resources: resourcesOf(w),
    drainPort: backendDrainPort({ backends: registry(), archiver }),
    suspendedTtlMs: SUSPENDED_TTL_MS,
  });
}

const sandboxMode = (name: string) => sandboxModeIn(kube, name);
const sandboxGone = (name: string) => sandboxGoneIn(kube, name);

async function pvcExists(name: string): Promise<boolean> {
  return kube.core.readNamespacedPersistentVolumeClaim({ name, namespace: "default" }).then(
    () => true,
    () => false,
  );
}

const pvcOf = (instanceId: string) => `workspace-${instanceId}`;

/** A Kubernetes box with a file written under an admitted write, drained by the reaper. */
async function drainedBox(w: LeaseWorld): Promise<{ s: SeededSession; box: WarmBox }> {
  const s = await seedSession(w.db, "kubernetes");
  const box = await establishBox(w, s, { spawner: spawnerOf(w), backend });
  await writeInBox(w, { session: s, box }, "mkdir -p work && printf kept > work/kept.txt");
  await w.leases.release({ ...s, leaseId: box.lease.id, kind: "direct", holderId: box.holderId });
  w.clock.advance(w.config.idleGraceMs);
  const report = await reaperOf(w).sweepOnce();
  expect(report.drains).toEqual([{ leaseId: box.lease.id, result: "cold" }]);
  return { s, box };
}

describe("drain on Kubernetes", () => {
  it("drain captures, then suspends keeping the disk; the next acquire resumes that box without hydrating", async () => {
    const w = world.current;
    const { s, box } = await drainedBox(w);
    expect(await sandboxMode(box.instanceId)).toBe("Suspended");
    expect(await pvcExists(pvcOf(box.instanceId))).toBe(true);
    const cold = await currentLease(w, s);
    expect(cold).toMatchObject({
      liveness: "cold",
      archiveComplete: true,
      instanceId: null,
      allocationId: null,
      suspendedInstanceId: box.instanceId,
      suspendedAllocationId: box.lease.allocationId,
      providerStatus: "exists",
    });

    const phases: string[] = [];
    const resumed = await establishBox(w, s, { spawner: spawnerOf(w, phases), backend });
    expect(resumed.instanceId).toBe(box.instanceId);
    expect(phases).not.toContain("hydrating");
    expect(phases).toEqual([]);
    expect((await resumed.client.revision()).revision).toBe(cold.selectedRevision);
    expect((await download(resumed.client, "work/kept.txt")).toString()).toBe("kept");
    expect(await currentLease(w, s)).toMatchObject({
      liveness: "warm",
      instanceId: box.instanceId,
      allocationId: box.lease.allocationId,
      suspendedInstanceId: null,
      restoreStatus: "ready",
    });
    expect(await sandboxMode(box.instanceId)).toBe("Running");
  });

  it("a disk written behind Berth's back is deleted with its Sandbox, fenced, and the revision rematerialized into a new allocation", async () => {
    const w = world.current;
    const { s, box } = await drainedBox(w);
    const cold = await currentLease(w, s);
    const folder = kube.sim.kubelet?.claimFolder("default", pvcOf(box.instanceId));
    if (folder === undefined) throw new Error("no folder behind the box's PVC");
    await writeFile(join(folder, "intruder.txt"), "not Berth's");

    const phases: string[] = [];
    const replaced = await establishBox(w, s, { spawner: spawnerOf(w, phases), backend });
    expect(replaced.instanceId).not.toBe(box.instanceId);
    expect(phases).toContain("hydrating");
    expect(await sandboxGone(box.instanceId)).toBe(true);
    expect(await pvcExists(pvcOf(box.instanceId))).toBe(false);
    expect((await replaced.client.revision()).revision).toBe(cold.selectedRevision);
    expect((await download(replaced.client, "work/kept.txt")).toString()).toBe("kept");
    const warm = await currentLease(w, s);
    expect(warm).toMatchObject({ liveness: "warm", instanceId: replaced.instanceId });
    expect(warm.allocationId).not.toBe(box.lease.allocationId);
    const events = await w.db.leaseEvent.findMany({
      where: { leaseId: warm.id, transition: { in: ["take_suspended", "discard_suspended"] } },
      orderBy: { id: "asc" },
    });
    expect(events.map((event) => event.transition)).toEqual([
      "take_suspended",
      "discard_suspended",
    ]);
  });

  it("a suspended Sandbox deleted behind Berth's back: the next acquire rematerializes the exact revision", async () => {
    const w = world.current;
    const { s, box } = await drainedBox(w);
    const cold = await currentLease(w, s);
    await kube.custom.deleteNamespacedCustomObject({ ...SANDBOXES, name: box.instanceId });
    const replaced = await establishBox(w, s, { spawner: spawnerOf(w), backend });
    expect(replaced.instanceId).not.toBe(box.instanceId);
    expect((await replaced.client.revision()).revision).toBe(cold.selectedRevision);
    expect((await download(replaced.client, "work/kept.txt")).toString()).toBe("kept");
  });

  it("the TTL sweep deletes a suspended box only past its TTL and once its archive covers the workspace generation", async () => {
    const w = world.current;
    const { s, box } = await drainedBox(w);
    const reaper = reaperOf(w);
    // Not idle long enough: kept.
    w.clock.advance(SUSPENDED_TTL_MS - 1);
    expect((await reaper.sweepOnce()).deletedSuspended).toEqual([]);
    // Idle long enough, but a write the archive lacks (the generation moved on): kept.
    const lease = await currentLease(w, s);
    await w.db.sandboxLease.update({
      where: { id: lease.id },
      data: { workspaceGeneration: lease.workspaceGeneration + 1 },
    });
    w.clock.advance(1);
    expect((await reaper.sweepOnce()).deletedSuspended).toEqual([]);
    expect(await sandboxMode(box.instanceId)).toBe("Suspended");
    // Covered again: deleted with its disk, and forgotten by the lease.
    await w.db.sandboxLease.update({
      where: { id: lease.id },
      data: { workspaceGeneration: lease.workspaceGeneration },
    });
    expect((await reaper.sweepOnce()).deletedSuspended).toEqual([{ instanceId: box.instanceId }]);
    expect(await sandboxGone(box.instanceId)).toBe(true);
    expect(await currentLease(w, s)).toMatchObject({
      liveness: "cold",
      suspendedInstanceId: null,
      restoreStatus: "pending",
    });
    // The next acquire rematerializes the revision into a new allocation.
    const next = await establishBox(w, s, { spawner: spawnerOf(w), backend });
    expect(next.instanceId).not.toBe(box.instanceId);
    expect((await download(next.client, "work/kept.txt")).toString()).toBe("kept");
  });

  it("the TTL sweep racing the next acquire: the box is resumed or deleted, never both, and the revision is served either way", async () => {
    const w = world.current;
    const { s, box } = await drainedBox(w);
    const cold = await currentLease(w, s);
    w.clock.advance(SUSPENDED_TTL_MS + 1);
    // Real concurrency: the sweep's forget and the spawner's take are each one fenced statement.
    const [sweep, next] = await Promise.all([
      reaperOf(w).sweepOnce(),
      establishBox(w, s, { spawner: spawnerOf(w), backend }),
    ]);
    const swept = sweep.deletedSuspended.map((deleted) => deleted.instanceId);
    if (swept.includes(box.instanceId)) {
      // The sweep forgot it first: the spawner rematerialized into a new allocation.
      expect(next.instanceId).not.toBe(box.instanceId);
      expect(await sandboxGone(box.instanceId)).toBe(true);
    } else {
      // The acquire went first: the sweep saw no cold lease, and the very box was resumed.
      expect(swept).toEqual([]);
      expect(next.instanceId).toBe(box.instanceId);
    }
    expect((await next.client.revision()).revision).toBe(cold.selectedRevision);
    expect((await download(next.client, "work/kept.txt")).toString()).toBe("kept");
    expect(await currentLease(w, s)).toMatchObject({
      liveness: "warm",
      instanceId: next.instanceId,
      suspendedInstanceId: null,
    });
    const leaseBoxes = (await backend.inventory()).filter(
      (listed) => listed.metadata.leaseId === box.lease.id && listed.state !== "gone",
    );
    expect(leaseBoxes.map((listed) => listed.instanceId)).toEqual([next.instanceId]);
  });
});
