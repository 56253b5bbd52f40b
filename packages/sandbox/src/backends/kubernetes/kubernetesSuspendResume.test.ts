// Suspend and resume on the Kubernetes adapter (issue 35, spec §6.5–§6.6): a suspend returns
// only once the pod is gone — never on the Suspended condition or a deletionTimestamp — and a
// resume serves only from a pod other than the one retiring. A finalizer holds the old pod in
// its terminating phase for as long as a test needs, with no sleeps. kube-sim over real HTTP.
import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import type { KubeSim } from "@berth/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeClient } from "./kubeClient.ts";
import { BackendError } from "../../spawner/backend.ts";
import { KubernetesBackend } from "./kubernetesBackend.ts";
import { SANDBOX } from "./kubeObjects.ts";
import { kubeBoxWorld, type KubeBoxWorld } from "./tests/kubeBoxWorld.ts";
import { until } from "./tests/simClient.ts";

const HOLD = "test.berth.dev/hold";

let w: KubeBoxWorld;
let sim: KubeSim;
let backend: KubernetesBackend;
let behind: KubeClient;

beforeAll(async () => {
  w = await kubeBoxWorld();
  sim = w.sim;
  backend = w.adapter();
  behind = w.client();
});
afterAll(async () => {
  await w[Symbol.asyncDispose]();
});

async function podOf(name: string) {
  return w.core.readNamespacedPod({ name, namespace: "default" });
}

/** Holds the pod in its terminating phase once deleted, until `release`. */
async function holdPod(name: string): Promise<{ release: () => Promise<void> }> {
  await w.core.patchNamespacedPod(
    {
      name,
      namespace: "default",
      body: [{ op: "add", path: "/metadata/finalizers", value: [HOLD] }],
    },
    jsonPatch(),
  );
  return {
    release: async () => {
      await w.core.patchNamespacedPod(
        { name, namespace: "default", body: [{ op: "remove", path: "/metadata/finalizers" }] },
        jsonPatch(),
      );
    },
  };
}

/** client-node sends a pod patch with the content type its caller names. */
function jsonPatch() {
  return setHeaderOptions("Content-Type", PatchStrategy.JsonPatch);
}

function podReads(name: string): number {
  return sim.requests
    .filter({ resource: "pods" })
    .filter((r) => r.method === "GET" && r.name === name).length;
}

describe("suspend and resume", () => {
  it("suspend waits out a terminating pod: it returns once the pod is gone, not when it is deleted", async () => {
    const { instanceId } = await backend.create({ metadata: w.metadata(1), profile: w.profile });
    await backend.ready(instanceId, { timeoutMs: 30_000 });
    const held = await holdPod(instanceId);
    let returned = false;
    const suspending = backend.suspend(instanceId, { epoch: 2 }).then(() => {
      returned = true;
    });
    // The pod is terminating, and the suspend has looked at it more than once meanwhile...
    await until(() => podReads(instanceId) > 0, 10_000);
    const before = podReads(instanceId);
    await until(() => podReads(instanceId) >= before + 3, 10_000);
    expect((await podOf(instanceId)).metadata?.deletionTimestamp).toBeDefined();
    // ...without returning.
    expect(returned).toBe(false);
    await held.release();
    await suspending;
    await expect(podOf(instanceId)).rejects.toMatchObject({ code: 404 });
    await backend.terminate(instanceId, { epoch: 2 });
  });

  it("resume serves from a new pod, never the retiring one still terminating", async () => {
    const meta = w.metadata(1);
    const { instanceId } = await backend.create({ metadata: meta, profile: w.profile });
    await backend.ready(instanceId, { timeoutMs: 30_000 });
    const old = (await podOf(instanceId)).metadata?.uid;
    const held = await holdPod(instanceId);
    // Suspended behind the adapter's back: the old pod is terminating, held there.
    await behind.patch(
      behind.operation({ label: "suspend behind", timeoutMs: 10_000 }),
      { kind: SANDBOX, name: instanceId },
      { type: "merge", body: { spec: { operatingMode: "Suspended" } } },
    );
    let resumed = false;
    const resuming = backend.resume(instanceId, { epoch: 2 }).then(() => {
      resumed = true;
    });
    const before = podReads(instanceId);
    await until(() => podReads(instanceId) >= before + 3, 10_000);
    expect((await podOf(instanceId)).metadata?.uid).toBe(old);
    expect(resumed).toBe(false);
    await held.release();
    await resuming;
    const now = (await podOf(instanceId)).metadata?.uid;
    expect(now).toBeDefined();
    expect(now).not.toBe(old);
    const client = await backend.connect(instanceId);
    expect((await client.exec({ argv: ["true"] })).exitCode).toBe(0);
    await backend.terminate(instanceId, { epoch: 2 });
  });

  it("a resume's requests: GET the Sandbox, GET its pod, one fenced PATCH; then each readiness poll GETs the Sandbox (the first its kept disk too), and its pod once Ready", async () => {
    const { instanceId } = await backend.create({ metadata: w.metadata(1), profile: w.profile });
    await backend.ready(instanceId, { timeoutMs: 30_000 });
    await backend.suspend(instanceId, { epoch: 2 });
    const from = sim.requests.filter({}).at(-1)?.seq ?? 0;
    await backend.resume(instanceId, { epoch: 3 });
    const sent = sim.requests
      .filter({})
      .filter((r) => r.seq > from && r.resource !== undefined)
      .map((r) => `${r.method} ${r.resource ?? ""}`);
    expect(sent.slice(0, 3)).toEqual(["GET sandboxes", "GET pods", "PATCH sandboxes"]);
    // A poll that finds the Sandbox not Ready yet stops before the pod; the last one reads it.
    // The kept disk is found to be the Sandbox's own once, by the first poll.
    const polls = sent.slice(3).join(", ");
    expect(polls).toMatch(
      /^GET sandboxes, GET persistentvolumeclaims(, GET pods)?(, GET sandboxes(, GET pods)?)*$/,
    );
    expect(polls.endsWith("GET pods")).toBe(true);
    await backend.terminate(instanceId, { epoch: 3 });
  });

  it("a suspend whose pod outlives its deadline answers unavailable; the next one finds the mode written and waits again", async () => {
    const quick = new KubernetesBackend({
      client: w.client(),
      installationId: () => Promise.resolve(w.installationId),
      secret: w.secret,
      pollIntervalMs: 20,
      operationTimeoutMs: 1_000,
    });
    const { instanceId } = await backend.create({ metadata: w.metadata(1), profile: w.profile });
    await backend.ready(instanceId, { timeoutMs: 30_000 });
    const held = await holdPod(instanceId);
    const timedOut = await quick.suspend(instanceId, { epoch: 2 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(timedOut).toBeInstanceOf(BackendError);
    expect((timedOut as BackendError).code).toBe("unavailable");
    expect((timedOut as BackendError).message).toMatch(/the box's pod did not stop within 1000 ms/);
    await held.release();
    const from = sim.requests.filter({}).at(-1)?.seq ?? 0;
    await backend.suspend(instanceId, { epoch: 2 });
    const patches = sim.requests
      .filter({ resource: "sandboxes" })
      .filter((r) => r.seq > from && r.method === "PATCH");
    expect(patches).toEqual([]);
    await expect(podOf(instanceId)).rejects.toMatchObject({ code: 404 });
    await backend.terminate(instanceId, { epoch: 2 });
  });

  it("a failed mode write (500) leaves the box serving, and the next suspend writes it; a resume of a running box writes nothing", async () => {
    const { instanceId } = await backend.create({ metadata: w.metadata(1), profile: w.profile });
    await backend.ready(instanceId, { timeoutMs: 30_000 });
    const from = sim.requests.filter({}).at(-1)?.seq ?? 0;
    await backend.resume(instanceId, { epoch: 1 });
    expect(
      sim.requests
        .filter({ resource: "sandboxes" })
        .filter((r) => r.seq > from && r.method === "PATCH"),
    ).toEqual([]);
    sim.faults.inject({
      verb: "patch",
      resource: "sandboxes",
      name: instanceId,
      nth: 1,
      effect: { kind: "status", code: 500 },
    });
    const failed = await backend.suspend(instanceId, { epoch: 2 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failed as BackendError).code).toBe("unavailable");
    const client = await backend.connect(instanceId);
    expect((await client.exec({ argv: ["true"] })).exitCode).toBe(0);
    await backend.suspend(instanceId, { epoch: 2 });
    expect((await backend.inventory()).find((box) => box.instanceId === instanceId)?.state).toBe(
      "suspended",
    );
    await backend.terminate(instanceId, { epoch: 2 });
    // A box that is gone: suspend and resume say so, terminate succeeds.
    for (const call of [backend.suspend(instanceId, { epoch: 3 }), backend.resume(instanceId)]) {
      const gone = await call.then(
        () => undefined,
        (error: unknown) => error,
      );
      expect((gone as BackendError).code).toBe("not_found");
    }
    await backend.terminate(instanceId, { epoch: 3 });
  });
});
