// The port's readiness on the Kubernetes adapter (issue 34): one deadline per wait, inside the
// backend. A box still starting (a pod stuck Pending, a suspended Sandbox) is not a failure
// until the deadline passes; API failures meanwhile are retried inside it, never past it.
// kube-sim over real HTTP, its controller making the pods and its kubelet running boxd.
import { randomBytes } from "node:crypto";
import type { KubeSim } from "@berth/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BackendError } from "../../spawner/backend.ts";
import type { ExecutionProfile } from "../../spawner/executionProfile.ts";
import type { KubernetesBackend } from "./kubernetesBackend.ts";
import { SANDBOX } from "./kubeObjects.ts";
import { kubeBoxWorld, type KubeBoxWorld } from "./tests/kubeBoxWorld.ts";
import { until } from "./tests/simClient.ts";

let w: KubeBoxWorld;
let sim: KubeSim;
let backend: KubernetesBackend;
let profile: ExecutionProfile;

beforeAll(async () => {
  w = await kubeBoxWorld();
  ({ sim, profile } = w);
  backend = w.adapter();
});
afterAll(async () => {
  await w[Symbol.asyncDispose]();
});

/** The rejection of what `start` starts, and how long (ms, monotonic) it took to reject. */
async function timedRejection(start: () => Promise<unknown>): Promise<[unknown, number]> {
  const started = performance.now();
  try {
    await start();
  } catch (error) {
    return [error, performance.now() - started];
  }
  throw new Error("expected a rejection");
}

describe("Kubernetes readiness", () => {
  it("a pod stuck Pending is not a failure until the deadline; then the pod says why: an image that cannot be pulled is invalid", async () => {
    // An image whose pull never succeeds: the pod stays Pending from its first look.
    const image = `never-pulled-${randomBytes(4).toString("hex")}`;
    sim.kubelet?.faults.set({ image }, { kind: "ImagePull" });
    const { instanceId } = await backend.create({
      metadata: w.metadata(),
      profile: { ...profile, image },
    });
    const [error, tookMs] = await timedRejection(() =>
      backend.ready(instanceId, { timeoutMs: 1_500 }),
    );
    expect(error).toBeInstanceOf(BackendError);
    expect((error as BackendError).code).toBe("invalid");
    expect((error as BackendError).message).toMatch(
      /never served: its image cannot be pulled \((ErrImagePull|ImagePullBackOff)/,
    );
    expect(tookMs).toBeGreaterThanOrEqual(1_500);
    // Meanwhile, and still, the box is starting: never running.
    const listed = (await backend.inventory()).find((box) => box.instanceId === instanceId);
    expect(listed?.state).toBe("starting");
    await backend.terminate(instanceId);
  });

  it("an unschedulable pod is capacity (retryable) once the deadline passed", async () => {
    const image = `unschedulable-${randomBytes(4).toString("hex")}`;
    sim.kubelet?.faults.set(
      { image },
      { kind: "Unschedulable", message: "0/3 nodes are available" },
    );
    const { instanceId } = await backend.create({
      metadata: w.metadata(),
      profile: { ...profile, image },
    });
    const [error, tookMs] = await timedRejection(() =>
      backend.ready(instanceId, { timeoutMs: 1_000 }),
    );
    expect((error as BackendError).code).toBe("capacity");
    expect((error as BackendError).message).toMatch(
      /cannot be scheduled: 0\/3 nodes are available/,
    );
    expect(tookMs).toBeGreaterThanOrEqual(1_000);
    await backend.terminate(instanceId);
  });

  it("a pod that runs but never becomes Ready is unavailable at the deadline, naming the controller's reason", async () => {
    const image = `never-ready-${randomBytes(4).toString("hex")}`;
    sim.kubelet?.faults.set({ image }, { kind: "NotReady" });
    const { instanceId } = await backend.create({
      metadata: w.metadata(),
      profile: { ...profile, image },
    });
    // Settled first: the controller has seen the pod, so Ready False is what the box says.
    await sim.settled();
    const [error] = await timedRejection(() => backend.ready(instanceId, { timeoutMs: 1_000 }));
    expect((error as BackendError).code).toBe("unavailable");
    expect((error as BackendError).message).toMatch(
      /did not serve within 1000 ms: box \S+ is starting: Ready is False/,
    );
    await backend.terminate(instanceId);
  });

  it("a box that starts serving inside the deadline is ready: the wait outlasts a suspended Sandbox", async () => {
    const { instanceId } = await backend.create({ metadata: w.metadata(), profile });
    await backend.ready(instanceId, { timeoutMs: 30_000 });
    await backend.suspend(instanceId);
    const readsBefore = sandboxReads(instanceId);
    const waiting = backend.ready(instanceId, { timeoutMs: 60_000 });
    // Seen suspended, and still waiting, more than once...
    await until(() => sandboxReads(instanceId) >= readsBefore + 3, 30_000);
    // ...until someone resumes it behind this wait's back.
    await w
      .client()
      .patch(
        startedOperation(),
        { kind: SANDBOX, name: instanceId },
        { type: "merge", body: { spec: { operatingMode: "Running" } } },
      );
    const client = await waiting;
    expect((await client.exec({ argv: ["true"] })).exitCode).toBe(0);
    await backend.terminate(instanceId);
  });

  it("API failures are retried inside the one deadline, and end the wait at it", async () => {
    const { instanceId } = await backend.create({ metadata: w.metadata(), profile });
    const failing = sim.faults.inject({
      verb: "get",
      resource: "sandboxes",
      name: instanceId,
      effect: { kind: "status", code: 503 },
    });
    const [error, tookMs] = await timedRejection(() =>
      backend.ready(instanceId, { timeoutMs: 1_000 }),
    );
    expect((error as BackendError).code).toBe("unavailable");
    expect((error as BackendError).message).toMatch(/did not serve within 1000 ms/);
    expect(failing.injected).toBeGreaterThan(1);
    expect(tookMs).toBeGreaterThanOrEqual(1_000);
    failing.remove();
    // The same box, asked again, serves: nothing of the failed wait is left to block it.
    const client = await backend.ready(instanceId, { timeoutMs: 30_000 });
    expect((await client.exec({ argv: ["true"] })).exitCode).toBe(0);
    await backend.terminate(instanceId);
  });
});

function sandboxReads(name: string): number {
  return sim.requests
    .filter({ resource: "sandboxes" })
    .filter((r) => r.verb === "get" && r.name === name).length;
}

function startedOperation() {
  return w.client().operation({
    label: "resume behind the wait",
    timeoutMs: 10_000,
  });
}
