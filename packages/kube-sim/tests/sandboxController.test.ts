/**
 * The Sandbox controller (§8.1–8.3, §9 item 11) through client-node over HTTP, with the fake
 * kubelet running real processes on a ManualClock.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type * as k8s from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import type { RuntimeContext } from "../src/index.ts";
import { nameHash } from "../src/index.ts";
import { MERGE, SANDBOXES, sandbox } from "./harness.ts";
import type { ControlledFixture } from "./kit.ts";
import {
  alive,
  clusterFixture,
  conditionOf,
  eventually,
  getSandbox,
  virtualTimeIn,
} from "./kit.ts";

// Real processes start under whatever load CI puts on the machine: generous per-test budgets.
describe("agent-sandbox Sandbox controller (§8.1–8.3)", { timeout: 20_000 }, () => {
  let current: ControlledFixture | undefined;
  afterEach(async () => {
    await current?.sim.close();
    current = undefined;
  });

  async function start(
    options: Parameters<typeof clusterFixture>[0] = {},
  ): Promise<ControlledFixture> {
    current = await clusterFixture(options);
    return current;
  }

  const isReady = (sb: { status?: { conditions?: { type: string; status: string }[] } }): boolean =>
    conditionOf(sb, "Ready")?.status === "True";

  it("§8 NameHash is 32-bit FNV-1a in hex: the spec's test vectors", () => {
    expect(nameHash("my-sandbox")).toBe("374de8f5");
    expect(nameHash("sandbox-1")).toBe("9b9033ee");
    expect(nameHash("python-template")).toBe("cede6d20");
  });

  it("§9.11 / §8.1–8.2 a Sandbox gets a Pod named after it with the hash label and a controller ref, and Ready=True DependenciesReady", async () => {
    const f = await start();
    const created = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("my-sandbox"),
    })) as { metadata: { uid: string } };
    const ready = await eventually(() => getSandbox(f, "my-sandbox"), isReady);
    expect(conditionOf(ready, "Ready")).toMatchObject({
      reason: "DependenciesReady",
      message: "Pod is Ready",
      observedGeneration: ready.metadata.generation,
    });
    expect(conditionOf(ready, "Suspended")).toMatchObject({
      status: "False",
      reason: "NotSuspended",
    });
    const pod = await f.core.readNamespacedPod({ name: "my-sandbox", namespace: "default" });
    expect(pod.status?.phase).toBe("Running");
    expect(pod.spec?.nodeName).toBeTruthy();
    expect(pod.status?.podIP).toMatch(/^127\.0\.\d+\.\d+$/);
    expect(pod.metadata?.labels?.["agents.x-k8s.io/sandbox-name-hash"]).toBe("374de8f5");
    expect(pod.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "agents.x-k8s.io/v1beta1",
        kind: "Sandbox",
        name: "my-sandbox",
        uid: created.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(ready.status?.podIPs).toEqual([pod.status?.podIP]);
    expect(ready.status?.selector).toBe("agents.x-k8s.io/sandbox-name-hash=374de8f5");
    expect(ready.metadata.annotations?.["agents.x-k8s.io/pod-name"]).toBe("my-sandbox");
    // §9.1: the label selector finds only this sandbox's pod.
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("other") });
    await eventually(() => getSandbox(f, "other"), isReady);
    const selected = await f.core.listNamespacedPod({
      namespace: "default",
      labelSelector: "agents.x-k8s.io/sandbox-name-hash=374de8f5",
    });
    expect(selected.items.map((p) => p.metadata?.name)).toEqual(["my-sandbox"]);
  });

  it("§8.1 PVCs are named <template>-<sandbox>, carry the hash label and a controller ref; spec.service makes a headless Service; deleting the Sandbox collects them all (§4.9)", async () => {
    const f = await start();
    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("sandbox-1", {
        service: true,
        podTemplate: {
          spec: {
            containers: [
              {
                name: "main",
                image: "busybox",
                ports: [
                  { containerPort: 8080 },
                  { containerPort: 53, protocol: "UDP", name: "dns" },
                ],
                volumeMounts: [{ name: "data", mountPath: "/data" }],
              },
            ],
          },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: "data", labels: { tier: "disk" } },
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
          },
        ],
      }),
    });
    const ready = await eventually(() => getSandbox(f, "sandbox-1"), isReady);
    expect(conditionOf(ready, "Ready")?.message).toBe("Pod is Ready; Service Exists");
    expect(ready.status?.serviceFQDN).toBe("sandbox-1.default.svc.cluster.local");
    const pvc = await f.core.readNamespacedPersistentVolumeClaim({
      name: "data-sandbox-1",
      namespace: "default",
    });
    expect(pvc.metadata?.labels).toEqual({
      tier: "disk",
      "agents.x-k8s.io/sandbox-name-hash": "9b9033ee",
    });
    expect(pvc.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: "Sandbox",
      name: "sandbox-1",
      uid: ready.metadata.uid,
      controller: true,
    });
    expect(pvc.status?.phase).toBe("Bound");
    const pod = await f.core.readNamespacedPod({ name: "sandbox-1", namespace: "default" });
    expect(pod.spec?.volumes).toContainEqual({
      name: "data",
      persistentVolumeClaim: { claimName: "data-sandbox-1" },
    });
    const service = await f.core.readNamespacedService({ name: "sandbox-1", namespace: "default" });
    expect(service.spec?.clusterIP).toBe("None");
    expect(service.spec?.selector).toEqual({ "agents.x-k8s.io/sandbox-name-hash": "9b9033ee" });
    expect(service.spec?.ports).toEqual([
      { name: "dns", port: 53, protocol: "UDP", targetPort: 53 },
      { name: "p-8080-tcp", port: 8080, protocol: "TCP", targetPort: 8080 },
    ]);
    const pids = f.sim.kubelet?.pids() ?? [];
    expect(pids).toHaveLength(1);

    await f.custom.deleteNamespacedCustomObject({ ...SANDBOXES, name: "sandbox-1" });
    await eventually(
      async () => ({
        pods: (await f.core.listNamespacedPod({ namespace: "default" })).items.length,
        pvcs: (await f.core.listNamespacedPersistentVolumeClaim({ namespace: "default" })).items
          .length,
        services: (await f.core.listNamespacedService({ namespace: "default" })).items.length,
      }),
      (left) => left.pods === 0 && left.pvcs === 0 && left.services === 0,
    );
    expect(pids.filter(alive)).toEqual([]);
  });

  it("§9.11 / §8.3 Suspended: Suspended=False PodTerminating while the pod is in its grace period, then True PodTerminated; the PVC and its files survive, and Running brings the pod back on them", async () => {
    const mounts: string[] = [];
    const f = await start({
      kubelet: {
        runtimes: {
          stubborn: (context: RuntimeContext) => {
            mounts.push(context.mounts[0]?.hostPath ?? "");
            // The process itself appends to its volume, found through the documented env var,
            // then ignores SIGTERM, so its pod stays terminating until SIGKILL.
            return {
              command: [
                "sh",
                "-c",
                'echo "started in $KUBE_SIM_VOLUME_DATA" >> "$KUBE_SIM_VOLUME_DATA/starts.txt"; trap "" TERM; exec sleep 100000',
              ],
            };
          },
        },
      },
    });
    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("sleepy", {
        podTemplate: {
          spec: {
            terminationGracePeriodSeconds: 5,
            containers: [
              {
                name: "main",
                image: "stubborn",
                volumeMounts: [{ name: "data", mountPath: "/data" }],
              },
            ],
          },
        },
        volumeClaimTemplates: [
          { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } },
        ],
      }),
    });
    await eventually(() => getSandbox(f, "sleepy"), isReady);
    await eventually(
      () => Promise.resolve(readFileSafe(join(mounts[0] ?? "", "starts.txt"))),
      (text) => text === `started in ${mounts[0] ?? ""}\n`,
    );
    const firstPids = f.sim.kubelet?.pids() ?? [];

    await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "sleepy", body: { spec: { operatingMode: "Suspended" } } },
      MERGE,
    );
    const suspending = await eventually(
      () => getSandbox(f, "sleepy"),
      (sb) => conditionOf(sb, "Suspended")?.reason === "PodTerminating",
    );
    expect(conditionOf(suspending, "Suspended")?.status).toBe("False");
    expect(conditionOf(suspending, "Ready")).toMatchObject({
      status: "False",
      reason: "SandboxSuspended",
      message: "Sandbox is suspending",
    });
    const terminating = await f.core.readNamespacedPod({ name: "sleepy", namespace: "default" });
    expect(terminating.metadata?.deletionTimestamp).toBeDefined();
    expect(terminating.metadata?.deletionGracePeriodSeconds).toBe(5);
    await f.sim.settled();
    // SIGTERM is ignored: the process lives until the grace period passes on the clock.
    expect(firstPids.filter(alive)).toHaveLength(1);
    f.clock.advance(5_000);
    const suspended = await eventually(
      () => getSandbox(f, "sleepy"),
      (sb) => conditionOf(sb, "Suspended")?.reason === "PodTerminated",
    );
    expect(conditionOf(suspended, "Suspended")?.status).toBe("True");
    expect(conditionOf(suspended, "Ready")?.message).toBe("Sandbox is suspended");
    expect(suspended.status?.podIPs).toBeUndefined();
    expect(suspended.metadata.annotations?.["agents.x-k8s.io/pod-name"]).toBeUndefined();
    expect((await f.core.listNamespacedPod({ namespace: "default" })).items).toEqual([]);
    await eventually(
      () => Promise.resolve(firstPids.filter(alive)),
      (left) => left.length === 0,
    );
    const pvc = await f.core.readNamespacedPersistentVolumeClaim({
      name: "data-sleepy",
      namespace: "default",
    });
    expect(pvc.metadata?.name).toBe("data-sleepy");

    await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "sleepy", body: { spec: { operatingMode: "Running" } } },
      MERGE,
    );
    await eventually(() => getSandbox(f, "sleepy"), isReady);
    expect(mounts).toHaveLength(2);
    expect(mounts[1]).toBe(mounts[0]);
    const line = `started in ${mounts[0] ?? ""}\n`;
    await eventually(
      () => Promise.resolve(readFileSafe(join(mounts[0] ?? "", "starts.txt"))),
      (text) => text === line + line,
    );
  });

  it("§9.11 / §8.3 a passed shutdownTime gives Ready=False SandboxExpired and removes the Pod and Service but keeps the PVC (Retain)", async () => {
    const f = await start();
    const shutdownTime = virtualTimeIn(f, 60_000);
    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("short", {
        service: true,
        shutdownTime,
        volumeClaimTemplates: [
          { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } },
        ],
      }),
    });
    await eventually(() => getSandbox(f, "short"), isReady);
    const pids = f.sim.kubelet?.pids() ?? [];
    f.clock.advance(61_000);
    const expired = await eventually(
      () => getSandbox(f, "short"),
      (sb) => conditionOf(sb, "Ready")?.reason === "SandboxExpired",
    );
    expect(conditionOf(expired, "Ready")).toMatchObject({
      status: "False",
      message: "Sandbox has expired",
    });
    await eventually(
      async () => ({
        pods: (await f.core.listNamespacedPod({ namespace: "default" })).items.length,
        services: (await f.core.listNamespacedService({ namespace: "default" })).items.length,
      }),
      (left) => left.pods === 0 && left.services === 0,
    );
    const settledSandbox = await eventually(
      () => getSandbox(f, "short"),
      (sb) => sb.status?.podIPs === undefined && sb.status?.service === undefined,
    );
    expect(conditionOf(settledSandbox, "PodScheduled")).toBeUndefined();
    expect(
      (await f.core.listNamespacedPersistentVolumeClaim({ namespace: "default" })).items.map(
        (p) => p.metadata?.name,
      ),
    ).toEqual(["data-short"]);
    await eventually(
      () => Promise.resolve(pids.filter(alive)),
      (left) => left.length === 0,
    );
  });

  it("§8.3 shutdownPolicy Delete: the expired Sandbox is deleted and GC takes its PVCs", async () => {
    const f = await start();
    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("doomed", {
        shutdownPolicy: "Delete",
        shutdownTime: virtualTimeIn(f, 10_000),
        volumeClaimTemplates: [
          { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } },
        ],
      }),
    });
    await eventually(() => getSandbox(f, "doomed"), isReady);
    f.clock.advance(10_000);
    await eventually(
      async () => ({
        sandboxes: (
          (await f.custom.listNamespacedCustomObject({ ...SANDBOXES })) as { items: unknown[] }
        ).items.length,
        pvcs: (await f.core.listNamespacedPersistentVolumeClaim({ namespace: "default" })).items
          .length,
      }),
      (left) => left.sandboxes === 0 && left.pvcs === 0,
    );
  });

  it("§8.1 spec.service false deletes the owned Service; unset keeps an existing one, still required for Ready", async () => {
    const f = await start();
    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("svc", { service: true }),
    });
    await eventually(() => getSandbox(f, "svc"), isReady);
    await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "svc", body: { spec: { service: null } } },
      MERGE,
    );
    await f.sim.settled();
    const unset = await getSandbox(f, "svc");
    expect(conditionOf(unset, "Ready")?.message).toBe("Pod is Ready; Service Exists");
    expect((await f.core.listNamespacedService({ namespace: "default" })).items).toHaveLength(1);
    await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "svc", body: { spec: { service: false } } },
      MERGE,
    );
    await eventually(
      async () => (await f.core.listNamespacedService({ namespace: "default" })).items.length,
      (n) => n === 0,
    );
    const without = await eventually(
      () => getSandbox(f, "svc"),
      (sb) => conditionOf(sb, "Ready")?.message === "Pod is Ready",
    );
    expect(without.status?.service).toBeUndefined();
  });

  it("§8.1 a second pod controlled by the Sandbox gives Ready=False MultiplePods", async () => {
    const f = await start();
    const created = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("twins"),
    })) as { metadata: { uid: string } };
    await eventually(() => getSandbox(f, "twins"), isReady);
    await f.http("/api/v1/namespaces/default/pods", {
      method: "POST",
      body: {
        metadata: {
          name: "twin-2",
          ownerReferences: [
            {
              apiVersion: "agents.x-k8s.io/v1beta1",
              kind: "Sandbox",
              name: "twins",
              uid: created.metadata.uid,
              controller: true,
            },
          ],
        },
        spec: { containers: [{ name: "main", image: "busybox" }] },
      },
    });
    const multiple = await eventually(
      () => getSandbox(f, "twins"),
      (sb) => conditionOf(sb, "Ready")?.reason === "MultiplePods",
    );
    expect(conditionOf(multiple, "Ready")?.status).toBe("False");
  });

  it("§8.3 a v1alpha1 Sandbox with replicas 0 is Suspended: no pod, Suspended=True PodTerminated", async () => {
    const f = await start();
    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      version: "v1alpha1",
      body: {
        apiVersion: "agents.x-k8s.io/v1alpha1",
        kind: "Sandbox",
        metadata: { name: "zero" },
        spec: {
          replicas: 0,
          podTemplate: { spec: { containers: [{ name: "main", image: "busybox" }] } },
        },
      },
    });
    const suspended = await eventually(
      () => getSandbox(f, "zero"),
      (sb) => conditionOf(sb, "Suspended") !== undefined,
    );
    expect(conditionOf(suspended, "Suspended")).toMatchObject({
      status: "True",
      reason: "PodTerminated",
    });
    expect(conditionOf(suspended, "Ready")).toMatchObject({
      reason: "SandboxSuspended",
      message: "Sandbox is suspended",
    });
    await f.sim.settled();
    expect((await f.core.listNamespacedPod({ namespace: "default" })).items).toEqual([]);
  });

  it("§8.1 an existing unowned PVC marked adoptable is adopted; one that is not makes Ready=False ReconcilerError", async () => {
    const f = await start();
    for (const [name, labels] of [
      ["data-adopter", { "agents.x-k8s.io/adoptable": "true" }],
      ["data-refuser", {}],
    ] as const) {
      await f.core.createNamespacedPersistentVolumeClaim({
        namespace: "default",
        body: JSON.parse(
          JSON.stringify({ metadata: { name, labels }, spec: { accessModes: ["ReadWriteOnce"] } }),
        ) as k8s.V1PersistentVolumeClaim,
      });
    }
    const withVolume = {
      volumeClaimTemplates: [
        { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } },
      ],
    };
    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("adopter", withVolume),
    });
    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("refuser", withVolume),
    });
    const adopter = await eventually(() => getSandbox(f, "adopter"), isReady);
    const pvc = await f.core.readNamespacedPersistentVolumeClaim({
      name: "data-adopter",
      namespace: "default",
    });
    expect(pvc.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: "Sandbox", uid: adopter.metadata.uid, controller: true }),
    ]);
    const refuser = await eventually(
      () => getSandbox(f, "refuser"),
      (sb) => conditionOf(sb, "Ready")?.reason === "ReconcilerError",
    );
    expect(conditionOf(refuser, "Ready")?.message).toBe(
      "Error seen: PersistentVolumeClaim data-refuser exists and is not adoptable",
    );
  });

  function readFileSafe(path: string): string {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return "";
    }
  }
});
