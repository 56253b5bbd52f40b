// Issue 38, the orphan sweep on Kubernetes: a box no lease records is deleted with its disk —
// at once (past the warming timeout) when it never took an admitted write, and only once its
// lease's archive covers the lease's workspace generation when it did. Deletes are fenced at the
// lease's epoch. kube-sim over real HTTP, real Postgres, the lease world's injected clock.
import { beforeAll, describe, expect, it } from "vitest";
import { RecoveryActions } from "../admin/recoveryActions.ts";
import { ArchiveRestorer } from "../archives/archiveRestorer.ts";
import type { FilesystemArchiveStore } from "../archives/filesystemArchiveStore.ts";
import { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import type { KubernetesBackend } from "../backends/kubernetes/kubernetesBackend.ts";
import {
  sandboxGone as sandboxGoneIn,
  type KubeBoxWorld,
} from "../backends/kubernetes/tests/kubeBoxWorld.ts";
import { backendDrainPort } from "../reaper/backendDrainPort.ts";
import type { Backend } from "../spawner/backend.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";
import { postWarmClaim, warmClaimName } from "../backends/kubernetes/warmClaim.ts";
import { OrphanSweepSystem } from "../spawner/orphanSweep.ts";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import { ManualClock } from "../testing/manualClock.ts";
import { RacepointBackend } from "../testing/racepointBackend.ts";
import { currentLease, establishBox, writeInBox, type WarmBox } from "./boxFixture.ts";
import { useKubeArchiveWorld } from "./kubeArchiveFixture.ts";
import { seedSession, useLeaseWorld, type LeaseWorld, type SeededSession } from "./leaseFixture.ts";

const world = useLeaseWorld();
const kubeWorld = useKubeArchiveWorld("kube-orphans");
let kube: KubeBoxWorld;
let backend: KubernetesBackend;
let store: FilesystemArchiveStore;
beforeAll(() => {
  ({ kube, backend, store } = kubeWorld.current);
});

const resourcesOf = (w: LeaseWorld) => ({ db: w.db, clock: w.clock, config: w.config });
const registryOf = (over: Backend = backend) => BackendRegistry.of(over, kube.profile);

function spawnerOf(w: LeaseWorld) {
  return new SpawnerSystem({
    resources: resourcesOf(w),
    backends: registryOf(),
    restorer: new ArchiveRestorer({ db: w.db, store }),
    readinessTimeoutMs: 30_000,
  });
}

const archiverOf = (w: LeaseWorld) =>
  new WorkspaceArchiver({ resources: resourcesOf(w), backends: registryOf(), store });

async function capture(w: LeaseWorld, s: SeededSession): Promise<void> {
  const captured = await archiverOf(w).capture(await currentLease(w, s), { actor: "test" });
  expect(captured.kind).toBe("published");
}

/** One orphan sweep past the warming timeout of every box made so far (on real time). */
function sweep(w: LeaseWorld, over: Backend = backend) {
  const later = new ManualClock(new Date(Date.now() + w.config.warmingTimeoutMs + 1_000));
  return new OrphanSweepSystem({
    resources: { ...resourcesOf(w), clock: later },
    backends: registryOf(over),
  }).sweepOnce();
}

async function diskExists(instanceId: string): Promise<boolean> {
  return kube.core
    .readNamespacedPersistentVolumeClaim({ name: `workspace-${instanceId}`, namespace: "default" })
    .then(
      () => true,
      () => false,
    );
}

/** A box its lease gave up (marked lost) while the cluster still runs it. */
async function givenUp(
  w: LeaseWorld,
  writes?: { readonly captured: string; readonly after: string },
): Promise<{ s: SeededSession; box: WarmBox }> {
  const s = await seedSession(w.db, "kubernetes");
  const box = await establishBox(w, s, { spawner: spawnerOf(w), backend });
  if (writes !== undefined) {
    await writeInBox(w, { session: s, box }, writes.captured);
    await capture(w, s);
    await writeInBox(w, { session: s, box }, writes.after);
  }
  const lease = await currentLease(w, s);
  const marked = await w.warming.markInstanceLost({
    workspaceId: s.workspaceId,
    leaseId: lease.id,
    expectedEpoch: lease.epoch,
    instanceId: box.instanceId,
    actor: "test",
  });
  expect(marked.outcome).toBe("marked");
  return { s, box };
}

describe("the orphan sweep on Kubernetes", () => {
  it("a box that never took an admitted write goes with its disk once past the warming timeout", async () => {
    const w = world.current;
    const { box } = await givenUp(w);
    const report = await sweep(w);
    expect(report.terminated).toContain(box.instanceId);
    expect(await sandboxGoneIn(kube, box.instanceId)).toBe(true);
    await kube.sim.settled();
    expect(await diskExists(box.instanceId)).toBe(false);
  });

  it("a box that took writes is kept, disk and all, until its lease's archive covers the workspace generation", async () => {
    const w = world.current;
    // Its last write is newer than the archive: only its disk holds it.
    const { s, box } = await givenUp(w, {
      captured: "printf first > a.txt",
      after: "printf second > a.txt",
    });
    const kept = await sweep(w);
    expect(kept.terminated).not.toContain(box.instanceId);
    expect(kept.kept).toContainEqual({
      instanceId: box.instanceId,
      reason: "it took admitted writes its lease's archive does not yet cover",
    });
    expect(await sandboxGoneIn(kube, box.instanceId)).toBe(false);
    expect(await diskExists(box.instanceId)).toBe(true);

    // An admin restores the archived revision (accepting the lost write), the session goes on in
    // a new box, and a capture of it covers the lease's generation.
    const admin = new RecoveryActions({
      resources: resourcesOf(w),
      drainPort: backendDrainPort({ backends: registryOf(), archiver: archiverOf(w) }),
    });
    const blocked = await currentLease(w, s);
    expect(
      await admin.restoreRevision({
        lease: blocked,
        revision: blocked.archiveRevision ?? "",
        actor: { kind: "user", id: "admin-1" },
      }),
    ).toMatchObject({ outcome: "restored" });
    const next = await establishBox(w, s, { spawner: spawnerOf(w), backend });
    await writeInBox(w, { session: s, box: next }, "printf third > b.txt");
    await capture(w, s);
    const lease = await currentLease(w, s);
    expect(lease.archiveGeneration).toBe(lease.workspaceGeneration);
    const swept = await sweep(w);
    expect(swept.terminated).toContain(box.instanceId);
    expect(swept.terminated).not.toContain(next.instanceId);
    expect(await sandboxGoneIn(kube, box.instanceId)).toBe(true);
  });

  it("the delete is fenced at the lease's epoch: a holder that stamped the box meanwhile keeps it", async () => {
    const w = world.current;
    const { s, box } = await givenUp(w);
    const lease = await currentLease(w, s);
    const racing = new RacepointBackend(backend, {
      beforeTerminate: async (instanceId) => {
        if (instanceId !== box.instanceId) return;
        // A successor adopts the same allocation at a newer epoch, stamping it on the Sandbox.
        await kube.adapter().create({
          metadata: {
            workspaceId: s.workspaceId,
            leaseId: lease.id,
            sandboxGroupId: s.sandboxGroupId,
            epoch: lease.epoch + 1,
            allocationId: box.lease.allocationId ?? "",
          },
          profile: kube.profile,
        });
      },
    });
    const report = await sweep(w, racing);
    expect(report.terminated).not.toContain(box.instanceId);
    expect(report.failed.map((failure) => failure.instanceId)).toContain(box.instanceId);
    expect(await sandboxGoneIn(kube, box.instanceId)).toBe(false);
    expect(await diskExists(box.instanceId)).toBe(true);
  });

  it("a warm claim whose member was never bound goes with its member; a pooled box a lease records keeps its claim", async () => {
    const w = world.current;
    const pool = "orphans-pool";
    await kube.applyWarmPool(pool, 1);
    const pooled = kube.adapter({ warmPool: pool });
    // The first create makes the pool's key (the pool is still empty: a direct box).
    const first = await pooled.create({ metadata: kube.metadata(), profile: kube.profile });
    await pooled.terminate(first.instanceId);
    await kube.warmPoolReady(pool);
    const s = await seedSession(w.db, "kubernetes");
    const recorded = await establishBox(w, s, {
      spawner: new SpawnerSystem({
        resources: resourcesOf(w),
        backends: registryOf(pooled),
        restorer: new ArchiveRestorer({ db: w.db, store }),
        readinessTimeoutMs: 30_000,
      }),
      backend: pooled,
    });
    expect(recorded.instanceId).toMatch(new RegExp(`^${pool}-`));

    // A create that died after its claim's POST: the claim binds a member nobody identifies.
    await kube.warmPoolReady(pool);
    const client = kube.client();
    const request = {
      installationId: kube.installationId,
      sandboxGroupId: crypto.randomUUID(),
      metadata: kube.metadata(),
      profile: kube.profile,
      pool,
      intervalMs: 20,
    };
    const { claim } = await postWarmClaim(
      client,
      client.operation({ label: "stray", timeoutMs: 10_000 }),
      request,
    );
    await kube.sim.settled();
    const member = (
      (await kube.custom.getNamespacedCustomObject({
        ...CLAIMS,
        name: claim.metadata.name,
      })) as { status?: { sandbox?: { name?: string } } }
    ).status?.sandbox?.name;
    expect(member).toMatch(new RegExp(`^${pool}-`));

    const report = await sweep(w, pooled);
    expect(report.terminated).toContain(`SandboxClaim/${claim.metadata.name}`);
    expect(report.terminated).not.toContain(recorded.instanceId);
    await kube.sim.settled();
    expect(await claimGone(claim.metadata.name)).toBe(true);
    // Its member goes with it (its pod's grace period may hold it a moment, being deleted).
    expect(await goingOrGone(member ?? "")).toBe(true);
    // The recorded box and the claim that took it are untouched.
    expect(await sandboxGoneIn(kube, recorded.instanceId)).toBe(false);
    const recordedClaim = warmClaimName({
      sandboxGroupId: s.sandboxGroupId,
      allocationId: recorded.lease.allocationId ?? "",
    });
    expect(await claimGone(recordedClaim)).toBe(false);
  });
});

const CLAIMS = {
  group: "extensions.agents.x-k8s.io",
  version: "v1beta1",
  namespace: "default",
  plural: "sandboxclaims",
} as const;

async function claimGone(name: string): Promise<boolean> {
  return kube.custom.getNamespacedCustomObject({ ...CLAIMS, name }).then(
    () => false,
    (error: unknown) => (error as { code?: number }).code === 404,
  );
}

async function goingOrGone(sandboxName: string): Promise<boolean> {
  return kube.custom
    .getNamespacedCustomObject({
      ...CLAIMS,
      group: "agents.x-k8s.io",
      plural: "sandboxes",
      name: sandboxName,
    })
    .then(
      (object) =>
        (object as { metadata?: { deletionTimestamp?: string } }).metadata?.deletionTimestamp !==
        undefined,
      (error: unknown) => (error as { code?: number }).code === 404,
    );
}
