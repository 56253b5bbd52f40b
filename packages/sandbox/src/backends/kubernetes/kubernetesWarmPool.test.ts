// Warm-pool claims (issue 38): a box taken from an operator's SandboxWarmPool is the Sandbox the
// claim bound — the pool's generated name, not the claim's — with its identity written after
// adoption and its boxd bound to the box's token over the pool key. An empty pool is passed
// over for a direct create; every failed acquire deletes its claim once; a box whose pod cannot
// be scheduled is `capacity`. kube-sim with its controller and kubelet, over real HTTP.
import type { KubeSim } from "@berth/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BackendError, backendErrorAnswers, type BoxMetadata } from "../../spawner/backend.ts";
import { ALLOCATION_ANNOTATIONS, LABELS } from "./berthKeys.ts";
import { boxPodTemplate } from "./boxPodTemplate.ts";
import type { KubernetesBackend } from "./kubernetesBackend.ts";
import { warmPoolManifests } from "./tests/boxTemplate.ts";
import { kubeBoxWorld, SANDBOXES, sandboxGone, type KubeBoxWorld } from "./tests/kubeBoxWorld.ts";
import { rejectionOf } from "./tests/simClient.ts";
import { warmClaimName } from "./warmClaim.ts";

const POOL = "pool";
const CLAIMS = { ...SANDBOXES, group: "extensions.agents.x-k8s.io", plural: "sandboxclaims" };

let w: KubeBoxWorld;
let sim: KubeSim;
let backend: KubernetesBackend;

beforeAll(async () => {
  w = await kubeBoxWorld();
  sim = w.sim;
  await w.applyWarmPool(POOL, 1);
  backend = w.adapter({ warmPool: POOL });
});
afterAll(async () => {
  await w[Symbol.asyncDispose]();
});

interface Claim {
  metadata: { name: string; uid: string };
  spec: Record<string, unknown>;
}

async function claims(): Promise<Claim[]> {
  const list = (await w.custom.listNamespacedCustomObject(CLAIMS)) as { items: Claim[] };
  return list.items;
}

interface Sandbox {
  metadata: {
    name: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { name: string; kind: string }[];
  };
}

async function sandbox(name: string): Promise<Sandbox> {
  return (await w.custom.getNamespacedCustomObject({ ...SANDBOXES, name })) as Sandbox;
}

async function sandboxes(): Promise<Sandbox[]> {
  return ((await w.custom.listNamespacedCustomObject(SANDBOXES)) as { items: Sandbox[] }).items;
}

function claimOf(metadata: BoxMetadata): string {
  return warmClaimName({
    sandboxGroupId: metadata.sandboxGroupId ?? "",
    allocationId: metadata.allocationId,
  });
}

function claimDeletes(name: string): number {
  return sim.requests.filter({ resource: "sandboxclaims", verb: "delete", name }).length;
}

/** Sandboxes a claim of that name owns and that are not being deleted with it. */
async function ownedBy(claim: string): Promise<string[]> {
  await sim.settled();
  return (await sandboxes())
    .filter(
      (box) =>
        box.metadata.deletionTimestamp === undefined &&
        box.metadata.ownerReferences?.some((ref) => ref.name === claim),
    )
    .map((box) => box.metadata.name);
}

describe("warm-pool claims", () => {
  it("a pool with no Ready member is passed over: the create is a direct one", async () => {
    await w.applyWarmPool("empty", 0);
    const metadata = w.metadata();
    const direct = w.adapter({ warmPool: "empty" });
    const { instanceId } = await direct.create({ metadata, profile: w.profile });
    expect(instanceId).toMatch(/^berth-/);
    expect((await sandbox(instanceId)).metadata.labels?.[LABELS.warmClaim]).toBeUndefined();
    expect((await claims()).map((c) => c.metadata.name)).not.toContain(claimOf(metadata));
    await direct.terminate(instanceId, { epoch: metadata.epoch });
  });

  it("takes a Ready member: the box is the pool's Sandbox, bound to this allocation and its token", async () => {
    await w.warmPoolReady(POOL);
    const metadata = w.metadata(3);
    const { instanceId } = await backend.create({ metadata, profile: w.profile });
    const claimName = claimOf(metadata);
    expect(instanceId).toMatch(new RegExp(`^${POOL}-`));
    expect(instanceId).not.toBe(claimName);
    // The claim carries only the pool's reference and its lifecycle: nothing that forces a
    // cold start.
    const claim = (await claims()).find((c) => c.metadata.name === claimName);
    expect(Object.keys(claim?.spec ?? {}).sort()).toEqual(["lifecycle", "warmPoolRef"]);
    expect(claim?.spec.warmPoolRef).toEqual({ name: POOL });
    // Identity written after adoption: Berth's labels and the allocation's annotations.
    const bound = (await sandbox(instanceId)).metadata;
    expect(bound.labels?.[LABELS.leaseId]).toBe(metadata.leaseId);
    expect(bound.labels?.[LABELS.warmClaim]).toBe(claimName);
    expect(bound.annotations?.[ALLOCATION_ANNOTATIONS.id]).toBe(metadata.allocationId);
    // boxd serves this box: its name, and commands, once bound.
    const client = await backend.ready(instanceId, { timeoutMs: 30_000 });
    expect((await client.health()).instanceId).toBe(instanceId);
    await client.write({ path: "kept.txt", content: "warm" });
    expect(
      (await backend.inventory()).find((box) => box.instanceId === instanceId)?.metadata,
    ).toMatchObject({ leaseId: metadata.leaseId, allocationId: metadata.allocationId });

    // The same allocation again (a create whose answer was lost) adopts it: no second claim.
    const again = await backend.create({ metadata, profile: w.profile });
    expect(again.instanceId).toBe(instanceId);
    expect((await claims()).filter((c) => c.metadata.name === claimName)).toHaveLength(1);

    // A resume starts a new pod from the pool's template, unbound: it is bound again.
    await backend.suspend(instanceId, { epoch: 3 });
    await backend.resume(instanceId, { epoch: 3 });
    const resumed = await backend.connect(instanceId);
    expect((await resumed.read({ path: "kept.txt" })).content).toBe("warm");

    // Terminate takes the claim with the box: nothing of either is left.
    await backend.terminate(instanceId, { epoch: 3 });
    expect(await sandboxGone(w, instanceId)).toBe(true);
    expect((await claims()).map((c) => c.metadata.name)).not.toContain(claimName);
  });

  it("a failed POST is cleaned up once: one DELETE of the claim, nothing taken from the pool", async () => {
    await w.warmPoolReady(POOL);
    const metadata = w.metadata();
    const fault = sim.faults.inject({
      verb: "create",
      resource: "sandboxclaims",
      effect: { kind: "status", code: 500 },
      times: 1,
    });
    const error = await rejectionOf(backend.create({ metadata, profile: w.profile }));
    fault.remove();
    expect(error).toBeInstanceOf(BackendError);
    expect(backendErrorAnswers[(error as BackendError).code].retryable).toBe(true);
    expect(claimDeletes(claimOf(metadata))).toBe(1);
    expect((await claims()).map((c) => c.metadata.name)).not.toContain(claimOf(metadata));
    await w.warmPoolReady(POOL);
  });

  it("a caller whose deadline ends mid-claim deletes its claim once, and the member it took with it", async () => {
    await w.warmPoolReady(POOL);
    const metadata = w.metadata();
    const name = claimOf(metadata);
    // The claim is made and binds a member; its reads hang until the caller's deadline ends.
    const hang = sim.faults.inject({
      verb: "get",
      resource: "sandboxclaims",
      name,
      effect: { kind: "hang" },
    });
    const hurried = w.adapter({ warmPool: POOL, operationTimeoutMs: 1_500 });
    const error = await rejectionOf(hurried.create({ metadata, profile: w.profile }));
    hang.remove();
    hang.release();
    expect(error).toBeInstanceOf(BackendError);
    expect(claimDeletes(name)).toBe(1);
    expect(await ownedBy(name)).toEqual([]);
    expect((await claims()).map((c) => c.metadata.name)).not.toContain(name);
  });

  it("a box whose pod cannot be scheduled at resume is `capacity`, and retryable", async () => {
    await w.warmPoolReady(POOL);
    const metadata = w.metadata(4);
    const hurried = w.adapter({ warmPool: POOL, operationTimeoutMs: 3_000 });
    const { instanceId } = await hurried.create({ metadata, profile: w.profile });
    await hurried.ready(instanceId, { timeoutMs: 30_000 });
    await hurried.suspend(instanceId, { epoch: 4 });
    const clear = sim.kubelet?.faults.set(
      { pod: instanceId },
      { kind: "Unschedulable", message: "0/1 nodes are available: 1 Insufficient cpu" },
    );
    const error = await rejectionOf(hurried.resume(instanceId, { epoch: 4 }));
    clear?.();
    expect(error).toBeInstanceOf(BackendError);
    expect((error as BackendError).code).toBe("capacity");
    expect(backendErrorAnswers.capacity.retryable).toBe(true);
    await hurried.terminate(instanceId, { epoch: 4 });
  });

  it("another installation's pool key is refused before anything is claimed", async () => {
    const stranger = w.adapter({ warmPool: POOL, secret: "another-secret-".repeat(4) });
    const metadata = w.metadata();
    const posted = sim.requests.filter({ resource: "sandboxclaims", verb: "create" }).length;
    const error = await rejectionOf(stranger.create({ metadata, profile: w.profile }));
    expect(error).toBeInstanceOf(BackendError);
    expect((error as BackendError).code).toBe("invalid");
    expect((error as BackendError).message).toContain("berth-warm-pool-key");
    expect(sim.requests.filter({ resource: "sandboxclaims", verb: "create" })).toHaveLength(posted);
  });
});

describe("the shipped warm-pool template", () => {
  it("is what Berth's pooled overlay makes of it: applying the overlay again changes nothing", () => {
    const [template] = warmPoolManifests();
    const { podTemplate } = template.spec;
    const container = podTemplate.spec.containers.find((c) => c.name === "boxd");
    const image = typeof container?.image === "string" ? container.image : "";
    const overlaid = boxPodTemplate({
      template: {
        name: template.metadata.name,
        podTemplate: podTemplate as never,
        volumeClaimTemplates: [],
      },
      profile: { template: template.metadata.name, image, resources: {} },
      identity: { kind: "pool" },
      boxdPort: 7070,
    });
    expect(overlaid).toEqual(podTemplate);
    expect(template.spec.volumeClaimTemplates?.map((claim) => claim.metadata.name)).toContain(
      "workspace",
    );
  });
});
