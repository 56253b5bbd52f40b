// Issue 37: the spawner's failure table (spawner.test.ts, archives.test.ts: the local backend's)
// on the real Kubernetes backend over kube-sim — real HTTP, client-node, the agent-sandbox
// controller making each Sandbox's pod and PVC, boxd as the pod's process. Each row makes its
// spawn fail at one step; whatever it leaves in the namespace must be one of this installation's
// boxes (what the sweeps can see), and once the reaper and the orphan sweep ran, no Sandbox,
// pod, Secret or PVC is left.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ArchiveRestorer } from "../archives/archiveRestorer.ts";
import { findArchive } from "../archives/archiveRows.ts";
import type { FilesystemArchiveStore } from "../archives/filesystemArchiveStore.ts";
import { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import type { KubernetesBackend } from "../backends/kubernetes/kubernetesBackend.ts";
import type { KubeBoxWorld } from "../backends/kubernetes/tests/kubeBoxWorld.ts";
import { backendDrainPort } from "../reaper/backendDrainPort.ts";
import { ReaperSystem } from "../reaper/reaperSystem.ts";
import { BackendError, type Backend } from "../spawner/backend.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";
import { OrphanSweepSystem } from "../spawner/orphanSweep.ts";
import { SpawnError } from "../spawner/spawnError.ts";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import { ManualClock } from "../testing/manualClock.ts";
import { RacepointBackend } from "../testing/racepointBackend.ts";
import { acquireSpawner, currentLease, establishBox, markLost, writeInBox } from "./boxFixture.ts";
import { useKubeArchiveWorld } from "./kubeArchiveFixture.ts";
import { seedSession, useLeaseWorld, type LeaseWorld, type SeededSession } from "./leaseFixture.ts";

const world = useLeaseWorld();
const kubeWorld = useKubeArchiveWorld("kube-spawn-failures");
let kube: KubeBoxWorld;
let backend: KubernetesBackend;
let store: FilesystemArchiveStore;
beforeAll(() => {
  ({ kube, backend, store } = kubeWorld.current);
});
/** Deletes every box: a failed row's leftovers never fail the rows after it. */
async function deleteEveryBox(): Promise<void> {
  for (const box of await backend.inventory()) await backend.terminate(box.instanceId);
}
afterEach(async () => {
  await deleteEveryBox();
  await settledNamespace(EMPTY);
});

/** The spawner's default: a kube-sim pod serves well within it even on 2 busy cores. */
const READY_MS = 30_000;
/** A row whose box never serves: the readiness deadline it spends (real time, in the backend). */
const NEVER_READY_MS = 1_500;

const resourcesOf = (w: LeaseWorld) => ({ db: w.db, clock: w.clock, config: w.config });
const registryOf = (over: Backend) => BackendRegistry.of(over, kube.profile);

function spawnerOver(w: LeaseWorld, over: Backend = backend, readinessTimeoutMs = READY_MS) {
  return new SpawnerSystem({
    resources: resourcesOf(w),
    backends: registryOf(over),
    restorer: new ArchiveRestorer({ db: w.db, store }),
    readinessTimeoutMs,
  });
}

function archiverOf(w: LeaseWorld) {
  return new WorkspaceArchiver({ resources: resourcesOf(w), backends: registryOf(backend), store });
}

/** The spawn's failure, which must be a SpawnError. */
async function spawnFailure(promise: Promise<unknown>): Promise<SpawnError> {
  const failure = await promise.then(
    () => new Error("the spawn succeeded"),
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(SpawnError);
  return failure as SpawnError;
}

interface Namespace {
  readonly sandboxes: readonly string[];
  readonly pods: readonly string[];
  readonly secrets: readonly string[];
  readonly claims: readonly string[];
}

interface Listed {
  readonly metadata?: {
    readonly name?: string;
    readonly deletionTimestamp?: unknown;
    readonly ownerReferences?: readonly { readonly name: string; readonly controller?: boolean }[];
  };
}

/**
 * The namespace's Sandboxes, pods, Secrets and PVCs, read behind the adapter's back; each named
 * by `name` (its own name by default). `live` leaves out what is being deleted (a pod in its
 * grace period): the cluster finishes that whatever Berth does.
 */
async function namespaceObjects(
  options: { live?: boolean; name?: (item: Listed) => string } = {},
): Promise<Namespace> {
  const namespace = "default";
  const nameOf = options.name ?? ((item: Listed) => item.metadata?.name ?? "");
  const names = (list: { readonly items: readonly Listed[] }) =>
    list.items
      .filter((item) => options.live !== true || item.metadata?.deletionTimestamp === undefined)
      .map(nameOf)
      .sort();
  const sandboxes = (await kube.custom.listNamespacedCustomObject({
    group: "agents.x-k8s.io",
    version: "v1beta1",
    namespace,
    plural: "sandboxes",
  })) as { items: Listed[] };
  return {
    sandboxes: names(sandboxes),
    pods: names(await kube.core.listNamespacedPod({ namespace })),
    secrets: names(await kube.core.listNamespacedSecret({ namespace })),
    claims: names(await kube.core.listNamespacedPersistentVolumeClaim({ namespace })),
  };
}

/** The Sandbox an object's controller owner reference names ("" when none). */
const controllerOf = (item: Listed) =>
  item.metadata?.ownerReferences?.find((owner) => owner.controller === true)?.name ?? "";

const EMPTY: Namespace = { sandboxes: [], pods: [], secrets: [], claims: [] };

/** The namespace once its objects settled: a deleted pod ends its grace period first. */
async function settledNamespace(expected: Namespace, ms = 20_000): Promise<Namespace> {
  const deadline = Date.now() + ms;
  for (;;) {
    await kube.sim.settled();
    const now = await namespaceObjects();
    if (JSON.stringify(now) === JSON.stringify(expected) || Date.now() > deadline) return now;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The row's closing check. Once garbage collection ran, what the row left (and is not on its
 * way out) is only boxes the inventory lists, so the sweeps see them (a Sandbox labelled for
 * this installation), and objects those boxes control; then the reaper (past the warming
 * timeout) and the orphan sweep (past it on the backend's real creation times) run, and the
 * namespace holds none of Berth's objects. Returns the orphan sweep's terminations.
 */
async function expectSweptClean(w: LeaseWorld): Promise<readonly string[]> {
  await kube.sim.settled();
  const left = await namespaceObjects({ live: true });
  const boxes = (await backend.inventory()).map((box) => box.instanceId).sort();
  expect(left.sandboxes).toEqual(boxes);
  const owners = await namespaceObjects({ live: true, name: controllerOf });
  for (const owner of [...owners.pods, ...owners.secrets, ...owners.claims])
    expect(boxes, `an object controlled by "${owner}"`).toContain(owner);

  w.clock.advance(w.config.warmingTimeoutMs + 1_000);
  const backends = registryOf(backend);
  await new ReaperSystem({
    resources: resourcesOf(w),
    drainPort: backendDrainPort({ backends, archiver: archiverOf(w) }),
  }).sweepOnce();
  const later = new ManualClock(new Date(Date.now() + w.config.warmingTimeoutMs + 1_000));
  const orphans = await new OrphanSweepSystem({
    resources: { ...resourcesOf(w), clock: later },
    backends,
  }).sweepOnce();
  expect(orphans.failed).toEqual([]);
  expect(await settledNamespace(EMPTY)).toEqual(EMPTY);
  return orphans.terminated;
}

/** A session on the Kubernetes backend whose lease has an archive and lost its box. */
async function archivedSession(w: LeaseWorld): Promise<SeededSession> {
  const s = await seedSession(w.db, "kubernetes");
  const box = await establishBox(w, s, { spawner: spawnerOver(w), backend });
  await writeInBox(w, { session: s, box }, "printf data > file.txt");
  const captured = await archiverOf(w).capture(await currentLease(w, s), { actor: "test" });
  expect(captured.kind).toBe("published");
  // Lost as a cluster loses it: the Sandbox deleted behind Berth's back, then noticed.
  await backend.terminate(box.instanceId);
  await markLost(w, s, box.instanceId);
  return s;
}

interface Row {
  readonly row: string;
  /** Drives the spawn to fail at its step and checks what the spawner answered. */
  readonly fail: (w: LeaseWorld) => Promise<void>;
  /** Whether the failure leaves a box only the orphan sweep removes. */
  readonly orphaned?: boolean;
}

const rows: readonly Row[] = [
  {
    row: "create throws before anything is made: create_failed, cold at epoch+1",
    fail: async (w) => {
      const s = await seedSession(w.db, "kubernetes");
      const { lease } = await acquireSpawner(w, s);
      const failing = new RacepointBackend(backend, {
        createFails: new BackendError({ code: "capacity", message: "no room for another box" }),
      });
      const failure = await spawnFailure(spawnerOver(w, failing).establish(lease));
      expect(failure, failure.message).toMatchObject({
        code: "create_failed",
        lease: { liveness: "cold", epoch: 1 },
      });
      expect(await namespaceObjects()).toEqual(EMPTY);
    },
  },
  {
    row: "the SandboxTemplate is missing: create_failed for the backend's invalid, saying what to apply; nothing made",
    fail: async (w) => {
      const s = await seedSession(w.db, "kubernetes");
      const { lease } = await acquireSpawner(w, s);
      const spawner = new SpawnerSystem({
        resources: resourcesOf(w),
        backends: BackendRegistry.of(backend, { ...kube.profile, template: "never-applied" }),
        restorer: new ArchiveRestorer({ db: w.db, store }),
        readinessTimeoutMs: READY_MS,
      });
      const failure = await spawnFailure(spawner.establish(lease));
      expect(failure, failure.message).toMatchObject({
        code: "create_failed",
        lease: { liveness: "cold", epoch: 1 },
      });
      expect(failure.cause).toBeInstanceOf(BackendError);
      expect((failure.cause as BackendError).code).toBe("invalid");
      expect((failure.cause as BackendError).message).toMatch(
        /SandboxTemplate never-applied does not exist in namespace default: apply Berth's \(deploy\/kubernetes\/sandbox-template.yaml\)/,
      );
      expect(await namespaceObjects()).toEqual(EMPTY);
    },
  },
  ...[false, true].map((deleteRefused): Row => ({
    row: deleteRefused
      ? "create fails after its Sandbox was made and its delete is refused too: the orphan sweep removes the Sandbox"
      : "create fails after its Sandbox was made (the token Secret refused): the create deletes the Sandbox it made",
    orphaned: deleteRefused,
    fail: async (w) => {
      const s = await seedSession(w.db, "kubernetes");
      const { lease } = await acquireSpawner(w, s);
      const refused = [
        kube.sim.faults.inject({
          verb: "create",
          resource: "secrets",
          effect: { kind: "status", code: 422, message: "refused by the test" },
        }),
        ...(deleteRefused
          ? [
              kube.sim.faults.inject({
                verb: "delete",
                resource: "sandboxes",
                effect: { kind: "status", code: 422, message: "refused by the test" },
              }),
            ]
          : []),
      ];
      try {
        const failure = await spawnFailure(spawnerOver(w).establish(lease));
        expect(failure, failure.message).toMatchObject({
          code: "create_failed",
          lease: { liveness: "cold" },
        });
      } finally {
        for (const fault of refused) fault.remove();
      }
      // Left running beside the group's next box only when it could not be deleted.
      expect((await namespaceObjects({ live: true })).sandboxes).toHaveLength(
        deleteRefused ? 1 : 0,
      );
    },
  })),
  ...(
    [
      ["record", "afterCreate"],
      ["commit", "beforeConnect"],
    ] as const
  ).map(([step, racepoint]): Row => ({
    row: `${step} loses the race: the Sandbox is deleted, the row untouched`,
    fail: async (w) => {
      const s = await seedSession(w.db, "kubernetes");
      const { lease } = await acquireSpawner(w, s);
      const fence = { workspaceId: s.workspaceId, leaseId: lease.id, expectedEpoch: lease.epoch };
      const racing = new RacepointBackend(backend, {
        [racepoint]: async () => {
          await w.warming.failWarming({ ...fence, terminated: false, actor: "rival" });
        },
      });
      const failure = await spawnFailure(spawnerOver(w, racing).establish(lease));
      expect(failure.code, failure.message).toBe("superseded");
      expect((await namespaceObjects()).sandboxes).toEqual([]);
    },
  })),
  ...(["NotReady", "ImagePull"] as const).map((fault): Row => ({
    row: `the pod never serves (${fault}) within the readiness deadline: deleted, cold at epoch+1`,
    fail: async (w) => {
      const s = await seedSession(w.db, "kubernetes");
      const { lease } = await acquireSpawner(w, s);
      const clear = kube.sim.kubelet?.faults.set({ image: kube.profile.image }, { kind: fault });
      try {
        const failure = await spawnFailure(
          spawnerOver(w, backend, NEVER_READY_MS).establish(lease),
        );
        expect(failure, failure.message).toMatchObject({
          code: "readiness_failed",
          lease: { liveness: "cold", epoch: 1, instanceId: null },
        });
      } finally {
        clear?.();
      }
      expect((await namespaceObjects()).sandboxes).toEqual([]);
    },
  })),
  {
    row: "termination not confirmed: left warming with its instance; the reaper deletes it",
    fail: async (w) => {
      const s = await seedSession(w.db, "kubernetes");
      const { lease } = await acquireSpawner(w, s);
      const box = { id: "" };
      const stubborn = new RacepointBackend(backend, {
        afterCreate: (instanceId) => {
          box.id = instanceId;
          return Promise.resolve();
        },
        readyFails: new BackendError({ code: "unavailable", message: "never served" }),
        terminateFailsOnce: true,
      });
      const failure = await spawnFailure(spawnerOver(w, stubborn).establish(lease));
      expect(failure.code, failure.message).toBe("termination_unconfirmed");
      expect(await currentLease(w, s)).toMatchObject({
        liveness: "warming",
        epoch: 0,
        instanceId: box.id,
      });
      expect((await namespaceObjects()).sandboxes).toEqual([box.id]);
    },
  },
  {
    row: "control plane killed between create and record: the orphan sweep deletes the Sandbox",
    orphaned: true,
    fail: async (w) => {
      const s = await seedSession(w.db, "kubernetes");
      const { lease } = await acquireSpawner(w, s);
      const fence = { workspaceId: s.workspaceId, leaseId: lease.id, expectedEpoch: lease.epoch };
      const intent = await w.warming.recordAllocation({
        ...fence,
        allocationId: crypto.randomUUID(),
      });
      const { instanceId } = await backend.create({
        metadata: {
          workspaceId: s.workspaceId,
          leaseId: lease.id,
          sandboxGroupId: s.sandboxGroupId,
          epoch: lease.epoch,
          allocationId: intent.lease?.allocationId ?? "",
        },
        profile: kube.profile,
      });
      // ...and the spawner dies here, before recording the box.
      expect((await namespaceObjects()).sandboxes).toEqual([instanceId]);
    },
  },
  {
    row: "restore pre-check fails (the archive's blob is missing): refused before any Sandbox exists",
    fail: async (w) => {
      const s = await archivedSession(w);
      const lease = await currentLease(w, s);
      const row = await findArchive(w.db, {
        leaseId: lease.id,
        revision: lease.selectedRevision ?? "",
      });
      await store.remove(row?.storageKey ?? "");
      const { lease: spawning } = await acquireSpawner(w, s);
      const failure = await spawnFailure(spawnerOver(w).establish(spawning));
      expect(failure, failure.message).toMatchObject({
        code: "restore_failed",
        failureCode: "archive_missing",
      });
      expect(await settledNamespace(EMPTY)).toEqual(EMPTY);
    },
  },
  {
    row: "hydrate fails (the pod is deleted mid-hydrate): the Sandbox is deleted, the restore retryable",
    fail: async (w) => {
      const s = await archivedSession(w);
      const { lease } = await acquireSpawner(w, s);
      const dying = new RacepointBackend(backend, {
        midHydrate: async (instanceId) => {
          await kube.core.deleteNamespacedPod({
            name: instanceId,
            namespace: "default",
            gracePeriodSeconds: 0,
          });
        },
      });
      const failure = await spawnFailure(spawnerOver(w, dying).establish(lease));
      expect(failure, failure.message).toMatchObject({
        code: "restore_failed",
        lease: { liveness: "cold" },
      });
      expect(await currentLease(w, s)).toMatchObject({ retryable: true });
      expect((await namespaceObjects()).sandboxes).toEqual([]);
    },
  },
  {
    row: "verification mismatch (the workspace changed after hydrate): the Sandbox is deleted",
    fail: async (w) => {
      const s = await archivedSession(w);
      const { lease } = await acquireSpawner(w, s);
      const tampering = new RacepointBackend(backend, {
        afterHydrate: async (client) => {
          await client.write({ path: "file.txt", content: "tampered" });
        },
      });
      const failure = await spawnFailure(spawnerOver(w, tampering).establish(lease));
      expect(failure, failure.message).toMatchObject({
        code: "restore_failed",
        failureCode: "workspace_fingerprint_mismatch",
      });
      expect((await namespaceObjects()).sandboxes).toEqual([]);
    },
  },
];

describe("issue 37: the spawner's failure table on the Kubernetes backend (kube-sim)", () => {
  it.each(rows)("$row", async ({ fail, orphaned }) => {
    const w = world.current;
    await fail(w);
    const terminated = await expectSweptClean(w);
    // Only a box no lease records is the orphan sweep's; every other row's is gone already or
    // the reaper's.
    expect(terminated.length > 0).toBe(orphaned === true);
  });
});
