// Issue 34: one backend registry and the installation id, over real Postgres, real local boxes
// and the real Kubernetes backend on kube-sim (over HTTP, boxd as its pods' process): a lease's
// box comes from, and is reached through, the backend the lease names, never another.
// The installation id is agreed between the database and the data folder (a mismatch refused),
// and a box labelled with another installation's id is neither listed nor swept as an orphan.
import { randomUUID } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BackendNotConfiguredError, BackendRegistry } from "../spawner/backendRegistry.ts";
import {
  ensureInstallationId,
  installationIdFile,
  InstallationMismatchError,
} from "../backends/installationId.ts";
import { backendsFromEnv } from "../backends/backendsFromEnv.ts";
import { LocalBackend } from "../backends/local/localBackend.ts";
import { sandboxEnvSchema } from "../env.ts";
import { BoxAccess, type BoxCall } from "../services/boxAccess.ts";
import { OrphanSweepSystem } from "../spawner/orphanSweep.ts";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import { ManualClock } from "../testing/manualClock.ts";
import { startKubeSim, type KubeSim } from "@berth/kube-sim";
import { KubeClient } from "../backends/kubernetes/kubeClient.ts";
import { KubernetesBackend } from "../backends/kubernetes/kubernetesBackend.ts";
import { BOXD_TEST_IMAGE, boxdRuntimes } from "../backends/kubernetes/tests/boxdRuntime.ts";
import { applyBoxTemplate } from "../backends/kubernetes/tests/boxTemplate.ts";
import { seedSession, useLeaseWorld, type LeaseWorld, type SeededSession } from "./leaseFixture.ts";
import { TEST_BOX_SECRET, tempDataDir } from "./spawnerFixture.ts";
import { localExecutionProfile } from "../spawner/executionProfile.ts";

const world = useLeaseWorld();
const ours = randomUUID();
const theirs = randomUUID();
let localDir = "";
/** This installation's local backend. */
let local: LocalBackend;
let sim: KubeSim;
/** This installation's Kubernetes backend, on kube-sim. */
let kubernetes: KubernetesBackend;
const kubeProfile = { template: "registry-test", image: BOXD_TEST_IMAGE, resources: {} };

function localIn(dataDir: string, installationId?: string): LocalBackend {
  return new LocalBackend({
    dataDir,
    secret: TEST_BOX_SECRET,
    isolation: "auto",
    ...(installationId === undefined
      ? {}
      : { installationId: () => Promise.resolve(installationId) }),
  });
}

beforeAll(async () => {
  localDir = await tempDataDir();
  local = localIn(localDir, ours);
  sim = await startKubeSim({ controller: true, kubelet: { runtimes: boxdRuntimes } });
  await applyBoxTemplate(sim.kubeConfig(), kubeProfile.template);
  kubernetes = new KubernetesBackend({
    client: new KubeClient({ source: { kind: "yaml", text: sim.kubeConfig() } }),
    installationId: () => Promise.resolve(ours),
    secret: TEST_BOX_SECRET,
    pollIntervalMs: 20,
  });
});
afterAll(async () => {
  const cleaner = localIn(localDir);
  for (const box of await cleaner.inventory()) await cleaner.terminate(box.instanceId);
  await rm(localDir, { recursive: true, force: true });
  for (const box of await kubernetes.inventory()) await kubernetes.terminate(box.instanceId);
  await sim.close();
});

function accessOver(w: LeaseWorld, backends: BackendRegistry): BoxAccess {
  const resources = { db: w.db, clock: w.clock, config: w.config };
  const spawner = new SpawnerSystem({ resources, backends, readinessTimeoutMs: 10_000 });
  return new BoxAccess({ resources, backends, spawner, pollMs: 50 });
}

function call(s: SeededSession): BoxCall {
  return { ...s, requestId: randomUUID(), operation: { name: "list", writes: false } };
}

async function boxesOf(backend: LocalBackend | KubernetesBackend, leaseId: string) {
  return (await backend.inventory()).filter((box) => box.metadata.leaseId === leaseId);
}

describe("the backend registry", () => {
  it("spawns and connects a lease's box through the backend the lease names", async () => {
    const w = world.current;
    const access = accessOver(
      w,
      new BackendRegistry({ local, kubernetes }, { kubernetes: kubeProfile }),
    );
    const onOther = await seedSession(w.db, "kubernetes");
    const onLocal = await seedSession(w.db, "local");

    await access.run(call(onOther), ({ box }) => box.list({ path: "." }));
    await access.run(call(onLocal), ({ box }) => box.list({ path: "." }));
    await access.settled();

    const otherLease = await w.leases.readByGroup(onOther);
    const localLease = await w.leases.readByGroup(onLocal);
    // Each has its box (draining now: the call's holder was released behind its answer).
    expect(otherLease?.backend).toBe("kubernetes");
    expect(otherLease?.instanceId).toBeTypeOf("string");
    expect(localLease?.backend).toBe("local");
    expect(localLease?.instanceId).toBeTypeOf("string");
    // The kubernetes-named lease's box is a Sandbox only, running in a pod, with its profile...
    expect((await boxesOf(kubernetes, otherLease?.id ?? "")).map((b) => b.instanceId)).toEqual([
      otherLease?.instanceId,
    ]);
    expect(await boxesOf(local, otherLease?.id ?? "")).toEqual([]);
    expect(
      await w.db.sandboxLease.findUnique({
        where: { id: otherLease?.id ?? "" },
        select: { boxIsolation: true, boxNetwork: true },
      }),
    ).toEqual({ boxIsolation: "pod", boxNetwork: "pod" });
    // ...and the local lease's box is a local one, never a Sandbox.
    expect((await boxesOf(local, localLease?.id ?? "")).map((b) => b.instanceId)).toEqual([
      localLease?.instanceId,
    ]);
    expect(await boxesOf(kubernetes, localLease?.id ?? "")).toEqual([]);
    // Each is reached through its own backend: a call reads what the other wrote in that box.
    await access.run({ ...call(onOther), operation: { name: "write", writes: true } }, ({ box }) =>
      box.write({ path: "where.txt", content: "kubernetes", expectedVersion: null }),
    );
    const kubeClient = await kubernetes.connect(otherLease?.instanceId ?? "");
    expect((await kubeClient.read({ path: "where.txt" })).content).toBe("kubernetes");
    await access.settled();
  });

  it("refuses a lease naming a backend it does not configure: nothing created, the lease cold", async () => {
    const w = world.current;
    const access = accessOver(w, new BackendRegistry({ local }));
    const s = await seedSession(w.db, "kubernetes");

    const refused = access.run(call(s), ({ box }) => box.list({ path: "." }));

    await expect(refused).rejects.toBeInstanceOf(BackendNotConfiguredError);
    await expect(refused).rejects.toMatchObject({
      code: "backend_not_configured",
      backend: "kubernetes",
      configured: ["local"],
    });
    const lease = await w.leases.readByGroup(s);
    expect(lease).toMatchObject({ liveness: "cold", instanceId: null, epoch: 1 });
    expect(await boxesOf(local, lease?.id ?? "")).toEqual([]);
  });

  it("answers which kinds are configured", () => {
    const registry = new BackendRegistry({ local });
    expect(registry.kinds()).toEqual(["local"]);
    expect(registry.isConfigured("kubernetes")).toBe(false);
    expect(() => registry.requireConfigured("kubernetes")).toThrow(/BERTH_BACKEND=kubernetes/);
  });
});

describe("BERTH_BACKEND", () => {
  it("defaults to local, and the one construction configures exactly that", () => {
    const env = sandboxEnvSchema.parse({});
    expect(env.BERTH_BACKEND).toBe("local");
    const { registry, local: built } = backendsFromEnv({
      env,
      local: { dataDir: localDir, secret: TEST_BOX_SECRET, isolation: "auto" },
    });
    expect(registry.kinds()).toEqual(["local"]);
    expect(registry.backendFor({ backend: "local" })).toBe(built);
  });

  // Since issue 37 kubernetes is accepted (with its template): issue-37-kube-config.test.ts.
  it("refuses a kind that is no backend", () => {
    expect(sandboxEnvSchema.safeParse({ BERTH_BACKEND: "docker" }).error?.issues).toMatchObject([
      { path: ["BERTH_BACKEND"], message: "must be one of local, kubernetes" },
    ]);
  });
});

describe("the installation id", () => {
  it("is generated once and kept agreed between the database and the data folder", async () => {
    const db = world.current.db;
    await db.$executeRaw`DELETE FROM installation`;
    const folder = await tempDataDir();
    const fresh = await tempDataDir();
    try {
      // First start: both get a new id.
      const id = await ensureInstallationId({ db, dataDir: folder });
      expect((await readFile(installationIdFile(folder), "utf8")).trim()).toBe(id);
      expect(await db.installation.findMany()).toMatchObject([{ id }]);
      // Every later start (and every process starting at once) agrees on it.
      const again = await Promise.all(
        Array.from({ length: 4 }, () => ensureInstallationId({ db, dataDir: folder })),
      );
      expect(again).toEqual([id, id, id, id]);
      // A fresh data folder (another replica) adopts the database's.
      expect(await ensureInstallationId({ db, dataDir: fresh })).toBe(id);
      expect((await readFile(installationIdFile(fresh), "utf8")).trim()).toBe(id);
      // A fresh database adopts the data folder's.
      await db.$executeRaw`DELETE FROM installation`;
      expect(await ensureInstallationId({ db, dataDir: folder })).toBe(id);
      expect(await db.installation.findMany()).toMatchObject([{ id }]);
    } finally {
      await rm(folder, { recursive: true, force: true });
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it("refuses a data folder and a database that name different installations, changing neither", async () => {
    const db = world.current.db;
    const folder = await tempDataDir();
    try {
      const databaseId = await ensureInstallationId({ db, dataDir: await tempDataDir() });
      const folderId = randomUUID();
      await mkdir(folder, { recursive: true });
      await writeFile(installationIdFile(folder), `${folderId}\n`);

      const refused = ensureInstallationId({ db, dataDir: folder });

      await expect(refused).rejects.toBeInstanceOf(InstallationMismatchError);
      await expect(refused).rejects.toThrow(
        /two Berth installations share a data folder or a database/,
      );
      expect((await readFile(installationIdFile(folder), "utf8")).trim()).toBe(folderId);
      expect(await db.installation.findMany()).toMatchObject([{ id: databaseId }]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("labels each box; inventory and the orphan sweep leave another installation's boxes alone", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const orphanOf = (allocationId: string) => ({
      // A lease that does not exist: nothing records these boxes, each is an orphan to its own.
      metadata: { workspaceId: s.workspaceId, leaseId: randomUUID(), epoch: 0, allocationId },
      profile: localExecutionProfile,
    });
    const foreign = localIn(localDir, theirs);
    const theirBox = await foreign.create(orphanOf(randomUUID()));
    const ourBox = await local.create(orphanOf(randomUUID()));
    // A box from before installation ids were recorded counts as this installation's.
    const olderBox = await localIn(localDir).create(orphanOf(randomUUID()));

    const listed = await local.inventory();
    const mine = listed.find((box) => box.instanceId === ourBox.instanceId);
    expect(mine?.metadata.installationId).toBe(ours);
    expect(listed.map((box) => box.instanceId)).toContain(olderBox.instanceId);
    expect(listed.map((box) => box.instanceId)).not.toContain(theirBox.instanceId);

    const later = new ManualClock(new Date(Date.now() + w.config.warmingTimeoutMs + 1_000));
    const swept = await new OrphanSweepSystem({
      resources: { db: w.db, clock: later, config: w.config },
      backends: new BackendRegistry({ local }),
    }).sweepOnce();

    expect(swept.terminated).toEqual(
      expect.arrayContaining([ourBox.instanceId, olderBox.instanceId]),
    );
    expect(swept.terminated).not.toContain(theirBox.instanceId);
    const theirsNow = (await foreign.inventory()).find(
      (box) => box.instanceId === theirBox.instanceId,
    );
    expect(theirsNow).toMatchObject({ state: "running", metadata: { installationId: theirs } });
    await foreign.terminate(theirBox.instanceId);
  });
});
