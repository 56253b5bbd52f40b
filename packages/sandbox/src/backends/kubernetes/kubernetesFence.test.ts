// The holder-epoch fence on the Kubernetes adapter (issue 35, spec §5), and the disk rule (§8):
// kube-sim over real HTTP, each test asserting on the requests the request log recorded.
import {
  V1ObjectMeta,
  V1PersistentVolumeClaim,
  V1PersistentVolumeClaimSpec,
  V1VolumeResourceRequirements,
} from "@kubernetes/client-node";

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LoggedRequest } from "@berth/kube-sim";
import { BackendError } from "../../spawner/backend.ts";
import { HOLDER_EPOCH_ANNOTATION } from "./holderEpoch.ts";
import { SANDBOX } from "./kubeObjects.ts";
import { sandboxNameFor } from "./sandboxNames.ts";
import { until } from "./tests/simClient.ts";
import { kubeBoxWorld, SANDBOXES, type KubeBoxWorld } from "./tests/kubeBoxWorld.ts";

let w: KubeBoxWorld;

beforeAll(async () => {
  w = await kubeBoxWorld();
});
afterAll(async () => {
  await w[Symbol.asyncDispose]();
});

/** The writes (PATCH, DELETE) to one Sandbox since `seq`, in order. */
function writesTo(name: string, afterSeq: number): LoggedRequest[] {
  return w.sim.requests
    .filter({ resource: "sandboxes" })
    .filter(
      (r) => r.name === name && r.seq > afterSeq && (r.method === "PATCH" || r.method === "DELETE"),
    );
}

function lastSeq(): number {
  return w.sim.requests.filter({}).at(-1)?.seq ?? 0;
}

async function storedEpoch(name: string): Promise<string | undefined> {
  const sandbox = (await w.custom.getNamespacedCustomObject({ ...SANDBOXES, name })) as {
    metadata: { annotations?: Record<string, string> };
  };
  return sandbox.metadata.annotations?.[HOLDER_EPOCH_ANNOTATION];
}

async function refusal(promise: Promise<unknown>): Promise<BackendError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BackendError);
  return error as BackendError;
}

describe("the holder-epoch fence", () => {
  it("A creates at 4, B adopts at 5 with one stamp; A's suspend and delete are refused unsent, B's work", async () => {
    const a = w.adapter();
    const b = w.adapter();
    const meta = w.metadata(4);
    const { instanceId } = await a.create({ metadata: meta, profile: w.profile });
    expect(await storedEpoch(instanceId)).toBe("4");

    const before = lastSeq();
    await b.create({ metadata: { ...meta, epoch: 5 }, profile: w.profile });
    const stamp = writesTo(instanceId, before);
    expect(stamp.map((r) => [r.method, r.contentType])).toEqual([
      ["PATCH", "application/json-patch+json"],
    ]);
    expect(JSON.parse(stamp[0]?.body ?? "[]")).toEqual([
      { op: "test", path: "/metadata/uid", value: expect.any(String) as string },
      { op: "test", path: `/metadata/annotations/sandbox.berth.dev~1holder-epoch`, value: "4" },
      { op: "add", path: `/metadata/annotations/sandbox.berth.dev~1holder-epoch`, value: "5" },
    ]);
    expect(await storedEpoch(instanceId)).toBe("5");

    const refusedAt = lastSeq();
    const suspend = await refusal(a.suspend(instanceId, { epoch: 4 }));
    expect(suspend.code).toBe("unavailable");
    expect(suspend.message).toMatch(/refused at epoch 4: epoch 5 holds it/);
    const terminate = await refusal(a.terminate(instanceId, { epoch: 4 }));
    expect(terminate.message).toMatch(/refused at epoch 4: epoch 5 holds it/);
    // A stale re-create of the allocation is refused the same way, before anything is woken.
    await refusal(a.create({ metadata: meta, profile: w.profile }));
    expect(writesTo(instanceId, refusedAt)).toEqual([]);

    // B's fenced suspend: one JSON Patch, every test before any change.
    const suspendAt = lastSeq();
    await b.suspend(instanceId, { epoch: 6 });
    const [patch] = writesTo(instanceId, suspendAt);
    expect(JSON.parse(patch?.body ?? "[]")).toEqual([
      { op: "test", path: "/metadata/uid", value: expect.any(String) as string },
      { op: "test", path: `/metadata/annotations/sandbox.berth.dev~1holder-epoch`, value: "5" },
      { op: "add", path: `/metadata/annotations/sandbox.berth.dev~1holder-epoch`, value: "6" },
      {
        op: "add",
        path: `/metadata/annotations/sandbox.berth.dev~1operating-mode-changed-at`,
        value: expect.any(String) as string,
      },
      { op: "add", path: "/spec/operatingMode", value: "Suspended" },
    ]);
    expect((await b.inventory()).find((box) => box.instanceId === instanceId)?.state).toBe(
      "suspended",
    );
    // Suspending again at the same epoch sends nothing.
    const againAt = lastSeq();
    await b.suspend(instanceId, { epoch: 6 });
    expect(writesTo(instanceId, againAt)).toEqual([]);

    // B's fenced delete names the uid and resourceVersion it checked the fence on.
    const deleteAt = lastSeq();
    await b.terminate(instanceId, { epoch: 6 });
    const [deletion] = writesTo(instanceId, deleteAt);
    expect(JSON.parse(deletion?.body ?? "{}")).toMatchObject({
      kind: "DeleteOptions",
      preconditions: {
        uid: expect.any(String) as string,
        resourceVersion: expect.any(String) as string,
      },
    });
    await refusal(b.connect(instanceId)).then((error) => {
      expect(error.code).toBe("not_found");
    });
  });

  it("a 422 on an unmoved object is not retried: GET, PATCH(422), GET, then the error", async () => {
    const box = w.adapter();
    const { instanceId } = await box.create({ metadata: w.metadata(2), profile: w.profile });
    // Served and settled: nothing (the controller's status writes) moves the object meanwhile.
    await box.ready(instanceId, { timeoutMs: 20_000 });
    await w.sim.settled();
    const failing = w.sim.faults.inject({
      verb: "patch",
      resource: "sandboxes",
      name: instanceId,
      nth: 1,
      effect: { kind: "status", code: 422 },
    });
    const before = lastSeq();
    const error = await refusal(box.suspend(instanceId, { epoch: 3 }));
    expect(error.code).toBe("unavailable");
    const trace = w.sim.requests
      .filter({ resource: "sandboxes" })
      .filter((r) => r.name === instanceId && r.seq > before)
      .map((r) => `${r.method} ${String(r.status)}`);
    expect(trace).toEqual(["GET 200", "PATCH 422", "GET 200"]);
    expect(failing.injected).toBe(1);
    expect(await storedEpoch(instanceId)).toBe("2");
    await box.terminate(instanceId, { epoch: 3 });
  });

  it("a write whose object moved under it reads again and applies: GET, PATCH(422), GET, PATCH", async () => {
    const box = w.adapter();
    const { instanceId } = await box.create({ metadata: w.metadata(2), profile: w.profile });
    // The PATCH is held while another writer stamps epoch 3; released, its test of "2" fails.
    const held = w.sim.faults.inject({
      verb: "patch",
      resource: "sandboxes",
      name: instanceId,
      nth: 1,
      effect: { kind: "hang" },
    });
    const before = lastSeq();
    const suspending = box.suspend(instanceId, { epoch: 4 });
    await until(() => held.matched === 1, 10_000);
    const rawFrom = lastSeq();
    const other = w.client();
    await other.patch(
      other.operation({ label: "another writer", timeoutMs: 10_000 }),
      { kind: SANDBOX, name: instanceId },
      {
        type: "json",
        operations: [
          { op: "add", path: "/metadata/annotations/sandbox.berth.dev~1holder-epoch", value: "3" },
        ],
      },
    );
    const rawTo = lastSeq();
    held.remove();
    held.release();
    await suspending;
    const trace = w.sim.requests
      .filter({ resource: "sandboxes" })
      .filter((r) => r.name === instanceId && r.seq > before && (r.seq <= rawFrom || r.seq > rawTo))
      .map((r) => `${r.method} ${String(r.status)}`);
    expect(trace.slice(0, 4)).toEqual(["GET 200", "PATCH 422", "GET 200", "PATCH 200"]);
    expect(await storedEpoch(instanceId)).toBe("4");
    await box.terminate(instanceId, { epoch: 4 });
  });

  it("a same-name replacement is reported gone, never retried", async () => {
    const box = w.adapter();
    const { instanceId } = await box.create({ metadata: w.metadata(1), profile: w.profile });
    const standing = (await w.custom.getNamespacedCustomObject({
      ...SANDBOXES,
      name: instanceId,
    })) as {
      metadata: Record<string, unknown>;
      spec: unknown;
    };
    const held = w.sim.faults.inject({
      verb: "patch",
      resource: "sandboxes",
      name: instanceId,
      nth: 1,
      effect: { kind: "hang" },
    });
    const suspending = box.suspend(instanceId, { epoch: 2 });
    await until(() => held.matched === 1, 10_000);
    // Deleted and made again under the same name: another object, another uid.
    await w.custom.deleteNamespacedCustomObject({ ...SANDBOXES, name: instanceId });
    const { labels, annotations } = standing.metadata as { labels: unknown; annotations: unknown };
    await w.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: {
        apiVersion: "agents.x-k8s.io/v1beta1",
        kind: "Sandbox",
        metadata: { name: instanceId, labels, annotations },
        spec: standing.spec,
      },
    });
    const before = lastSeq();
    held.remove();
    held.release();
    const error = await refusal(suspending);
    expect(error.code).toBe("not_found");
    expect(error.message).toMatch(/was replaced/);
    // One re-read, no second PATCH.
    expect(writesTo(instanceId, before)).toEqual([]);
    await w.custom.deleteNamespacedCustomObject({ ...SANDBOXES, name: instanceId });
  });
});

describe("the workspace disk", () => {
  it("a stranger's PVC under the expected name is refused, never served, and survives the box", async () => {
    const box = w.adapter();
    const meta = w.metadata(1);
    // Someone else's claim, made first under the name the box's disk will have.
    const name = sandboxNameFor({
      sandboxGroupId: meta.sandboxGroupId ?? "",
      allocationId: meta.allocationId,
    });
    const stranger = new V1PersistentVolumeClaim();
    stranger.metadata = Object.assign(new V1ObjectMeta(), { name: `workspace-${name}` });
    stranger.spec = Object.assign(new V1PersistentVolumeClaimSpec(), {
      accessModes: ["ReadWriteOnce"],
      resources: Object.assign(new V1VolumeResourceRequirements(), {
        requests: { storage: "1Gi" },
      }),
    });
    await w.core.createNamespacedPersistentVolumeClaim({ namespace: "default", body: stranger });
    const { instanceId } = await box.create({ metadata: meta, profile: w.profile });
    const error = await refusal(box.ready(instanceId, { timeoutMs: 20_000 }));
    expect(error.code).toBe("invalid");
    expect(error.message).toMatch(/disk workspace-.* is not its own/);
    await box.terminate(instanceId, { epoch: 1 });
    await w.sim.settled();
    const claim = await w.core.readNamespacedPersistentVolumeClaim({
      name: `workspace-${name}`,
      namespace: "default",
    });
    expect(claim.metadata?.name).toBe(`workspace-${name}`);
  });
});
