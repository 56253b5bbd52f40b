/**
 * The fake scheduler and kubelet (§8.6) on their own: pods created directly through client-node
 * run as real processes on a ManualClock, and the fault controls change what they report.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as k8s from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import { SANDBOXES, sandbox, watchUntil } from "./harness.ts";
import type { ControlledFixture } from "./kit.ts";
import { alive, clusterFixture, conditionOf, eventually, getSandbox } from "./kit.ts";

// Real processes start under whatever load CI puts on the machine: generous per-test budgets.
describe("fake scheduler and kubelet (§8.6)", { timeout: 20_000 }, () => {
  let current: ControlledFixture | undefined;
  const folders: string[] = [];
  afterEach(async () => {
    await current?.sim.close();
    current = undefined;
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  /** A pod body; plain JSON, as the API sees it (client-node types bodies as classes). */
  function pod(name: string, spec: Record<string, unknown> = {}): k8s.V1Pod {
    const json = JSON.stringify({
      metadata: { name },
      spec: { containers: [{ name: "main", image: "busybox" }], ...spec },
    });
    return JSON.parse(json) as k8s.V1Pod;
  }

  const readPod = (f: ControlledFixture, name: string): Promise<k8s.V1Pod> =>
    f.core.readNamespacedPod({ name, namespace: "default" });

  const podCondition = (p: k8s.V1Pod, type: string): k8s.V1PodCondition | undefined =>
    p.status?.conditions?.find((c) => c.type === type);

  it("§8.6 a pod is scheduled and started: nodeName, PodScheduled, Running with Ready and ContainersReady, containerStatuses, startTime, its own 127.0.0.N, and the env with downward-API fields", async () => {
    const out = mkdtempSync(join(tmpdir(), "kube-sim-env-"));
    folders.push(out);
    const f = await clusterFixture({
      kubelet: {
        runtimes: {
          "env-dump": () => ({
            command: ["sh", "-c", `env > ${join(out, "env.txt")}; exec sleep 100000`],
          }),
        },
      },
    });
    current = f;
    const created = await f.core.createNamespacedPod({
      namespace: "default",
      body: pod("envy", {
        containers: [
          {
            name: "main",
            image: "env-dump:1.0",
            env: [
              { name: "PLAIN", value: "value" },
              { name: "MY_UID", valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } },
              { name: "MY_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
              { name: "MY_NS", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
            ],
          },
        ],
      }),
    });
    const running = await eventually(
      () => readPod(f, "envy"),
      (p) => p.status?.phase === "Running",
    );
    expect(running.spec?.nodeName).toBe("kube-sim-node");
    expect(podCondition(running, "PodScheduled")?.status).toBe("True");
    expect(podCondition(running, "Ready")?.status).toBe("True");
    expect(podCondition(running, "ContainersReady")?.status).toBe("True");
    expect(running.status?.startTime).toBeDefined();
    expect(running.status?.containerStatuses?.[0]).toMatchObject({
      name: "main",
      ready: true,
      restartCount: 0,
    });
    expect(running.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
    const ip = running.status?.podIP ?? "";
    expect(ip).toMatch(/^127\.0\.\d+\.\d+$/);
    expect(ip).not.toBe("127.0.0.1");
    expect(running.status?.podIPs).toEqual([{ ip }]);
    const env = await eventually(
      () => Promise.resolve(readFileSafe(join(out, "env.txt"))),
      (text) => text.includes("POD_IP="),
    );
    expect(env).toContain("PLAIN=value\n");
    expect(env).toContain(`MY_UID=${created.metadata?.uid ?? "?"}\n`);
    expect(env).toContain("MY_NAME=envy\n");
    expect(env).toContain("MY_NS=default\n");
    expect(env).toContain(`POD_IP=${ip}\n`);

    // A second pod gets a different address.
    await f.core.createNamespacedPod({ namespace: "default", body: pod("second") });
    const second = await eventually(
      () => readPod(f, "second"),
      (p) => p.status?.phase === "Running",
    );
    expect(second.status?.podIP).not.toBe(ip);
  });

  function readFileSafe(path: string): string {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return "";
    }
  }

  it("§8.6 / §4.9 deleting a running pod marks it with the grace period, SIGTERMs the process and removes the object once it ended", async () => {
    const f = await clusterFixture();
    current = f;
    await f.core.createNamespacedPod({
      namespace: "default",
      body: pod("graceful", { terminationGracePeriodSeconds: 7 }),
    });
    await eventually(
      () => readPod(f, "graceful"),
      (p) => p.status?.phase === "Running",
    );
    const pids = f.sim.kubelet?.pids() ?? [];
    expect(pids).toHaveLength(1);
    const marked = await f.core.deleteNamespacedPod({ name: "graceful", namespace: "default" });
    expect(marked.metadata?.deletionGracePeriodSeconds).toBe(7);
    expect(marked.metadata?.deletionTimestamp).toBeDefined();
    // `sleep` ends on SIGTERM, so no clock movement is needed.
    await eventually(
      async () => (await f.core.listNamespacedPod({ namespace: "default" })).items.length,
      (n) => n === 0,
    );
    expect(pids.filter(alive)).toEqual([]);
  });

  it("§8.6 / K17 an Unschedulable fault keeps PodScheduled False with reason Unschedulable and no nodeName; deleting that pod removes it at once", async () => {
    const f = await clusterFixture();
    current = f;
    f.sim.kubelet?.faults.set({ pod: "stuck" }, { kind: "Unschedulable" });
    await f.core.createNamespacedPod({ namespace: "default", body: pod("stuck") });
    const pending = await eventually(
      () => readPod(f, "stuck"),
      (p) => podCondition(p, "PodScheduled") !== undefined,
    );
    expect(podCondition(pending, "PodScheduled")).toMatchObject({
      status: "False",
      reason: "Unschedulable",
    });
    expect(pending.spec?.nodeName).toBeUndefined();
    expect(pending.status?.phase).toBe("Pending");
    await f.core.deleteNamespacedPod({ name: "stuck", namespace: "default" });
    expect((await f.core.listNamespacedPod({ namespace: "default" })).items).toEqual([]);
  });

  it("§8.6 an ImagePull fault leaves the pod Pending with ErrImagePull, then ImagePullBackOff, and no process", async () => {
    const f = await clusterFixture();
    current = f;
    f.sim.kubelet?.faults.set({ image: "missing:latest" }, { kind: "ImagePull" });
    const created = await f.core.createNamespacedPod({
      namespace: "default",
      body: pod("pull", { containers: [{ name: "main", image: "missing:latest" }] }),
    });
    const reasonOf = (object: Record<string, unknown>): string | undefined =>
      (object as unknown as k8s.V1Pod).status?.containerStatuses?.[0]?.state?.waiting?.reason;
    // Every write of the pod, from its creation: ErrImagePull comes before the back-off.
    const { events } = await watchUntil(
      f.kc,
      {
        path: "/api/v1/namespaces/default/pods",
        query: {
          fieldSelector: "metadata.name=pull",
          resourceVersion: created.metadata?.resourceVersion,
        },
      },
      (seen) => seen.some((event) => reasonOf(event.object) === "ImagePullBackOff"),
    );
    const reasons = events.map((event) => reasonOf(event.object)).filter((r) => r !== undefined);
    expect(reasons.slice(0, 2)).toEqual(["ErrImagePull", "ImagePullBackOff"]);
    const backoff = await readPod(f, "pull");
    expect(backoff.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe("ImagePullBackOff");
    expect(backoff.status?.phase).toBe("Pending");
    expect(podCondition(backoff, "Ready")?.status).toBe("False");
    expect(f.sim.kubelet?.pids()).toEqual([]);
  });

  it("§8.6 / §8.2 an Exit fault makes the process exit non-zero: the pod is Failed with a terminated status, and its Sandbox Ready=False PodFailed with Finished", async () => {
    const f = await clusterFixture();
    current = f;
    f.sim.kubelet?.faults.set({ image: "crasher" }, { kind: "Exit", code: 3 });
    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("crashy", {
        podTemplate: { spec: { containers: [{ name: "main", image: "crasher" }] } },
      }),
    });
    const failed = await eventually(
      () => readPod(f, "crashy"),
      (p) => p.status?.phase === "Failed",
    );
    expect(failed.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 3,
      reason: "Error",
    });
    const sb = await eventually(
      () => getSandbox(f, "crashy"),
      (s) => conditionOf(s, "Ready")?.reason === "PodFailed",
    );
    expect(conditionOf(sb, "Ready")).toMatchObject({ status: "False", message: "Pod failed" });
    expect(conditionOf(sb, "Finished")).toMatchObject({ status: "True", reason: "PodFailed" });
    // K17: a terminal pod is removed at once when deleted, with no grace period.
    await f.core.createNamespacedPod({
      namespace: "default",
      body: pod("done", { containers: [{ name: "main", image: "crasher" }] }),
    });
    await eventually(
      () => readPod(f, "done"),
      (p) => p.status?.phase === "Failed",
    );
    await f.core.deleteNamespacedPod({ name: "done", namespace: "default" });
    expect(
      (await f.core.listNamespacedPod({ namespace: "default" })).items.map((p) => p.metadata?.name),
    ).toEqual(["crashy"]);
  });

  it("§8.6 close() kills every process the kubelet started, including ones that ignore SIGTERM", async () => {
    const f = await clusterFixture({
      kubelet: {
        runtimes: {
          stubborn: () => ({ command: ["sh", "-c", 'trap "" TERM; exec sleep 100000'] }),
        },
      },
    });
    current = f;
    for (const [name, image] of [
      ["a", "busybox"],
      ["b", "stubborn"],
      ["c", "stubborn"],
    ] as const) {
      await f.core.createNamespacedPod({
        namespace: "default",
        body: pod(name, { containers: [{ name: "main", image }] }),
      });
    }
    await eventually(
      async () => (await f.core.listNamespacedPod({ namespace: "default" })).items,
      (items) => items.every((p) => p.status?.phase === "Running"),
    );
    const pids = f.sim.kubelet?.pids() ?? [];
    expect(pids).toHaveLength(3);
    expect(pids.filter(alive)).toHaveLength(3);
    await f.sim.close();
    current = undefined;
    expect(pids.filter(alive)).toEqual([]);
  });

  it("§8.2 / §8.6 the NotReady, NoPodIP and ImagePull faults show in the Sandbox's Ready=False DependenciesNotReady messages", async () => {
    const f = await clusterFixture();
    current = f;
    const kubelet = f.sim.kubelet;
    kubelet?.faults.set({ image: "lazy" }, { kind: "NotReady" });
    kubelet?.faults.set({ pod: "no-ip", namespace: "default" }, { kind: "NoPodIP" });
    kubelet?.faults.set({ image: "missing" }, { kind: "ImagePull" });
    const cases = [
      ["not-ready", "lazy", "Pod is Running but not Ready"],
      ["no-ip", "busybox", "Pod is Ready but has no podIPs yet"],
      ["pulling", "missing", "Pod exists with phase: Pending"],
    ] as const;
    for (const [name, image] of cases) {
      await f.custom.createNamespacedCustomObject({
        ...SANDBOXES,
        body: sandbox(name, {
          podTemplate: { spec: { containers: [{ name: "main", image }] } },
        }),
      });
    }
    for (const [name, , message] of cases) {
      const sb = await eventually(
        () => getSandbox(f, name),
        (s) => conditionOf(s, "Ready")?.message === message,
      );
      expect(conditionOf(sb, "Ready")).toMatchObject({
        status: "False",
        reason: "DependenciesNotReady",
      });
    }
    const noIp = await readPod(f, "no-ip");
    expect(noIp.status?.podIP).toBeUndefined();
  });
});
