/**
 * SandboxTemplate, SandboxWarmPool and SandboxClaim (§8.4–8.5, §9 item 11) through client-node.
 */
import * as k8s from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import { nameHash } from "../src/index.ts";
import { CLAIMS, MERGE, watchUntil } from "./harness.ts";
import type { ControlledFixture, CustomObject } from "./kit.ts";
import {
  POOLS,
  TEMPLATES,
  claim,
  clusterFixture,
  conditionOf,
  eventually,
  getClaim,
  getPool,
  getSandbox,
  listSandboxes,
  pool,
  template,
  virtualTimeIn,
} from "./kit.ts";

// Real processes start under whatever load CI puts on the machine: generous per-test budgets.
describe("agent-sandbox extensions controllers (§8.4–8.5)", { timeout: 20_000 }, () => {
  let current: ControlledFixture | undefined;
  afterEach(async () => {
    await current?.sim.close();
    current = undefined;
  });

  it("§8.4 the template controller labels a SandboxTemplate with its own name hash and keeps its NetworkPolicy while Managed", async () => {
    const f = await clusterFixture();
    current = f;
    await f.custom.createNamespacedCustomObject({
      ...TEMPLATES,
      body: template("python-template"),
    });
    const labelled = await eventually(
      () =>
        f.custom.getNamespacedCustomObject({
          ...TEMPLATES,
          name: "python-template",
        }) as Promise<CustomObject>,
      (t) => t.metadata.labels?.["agents.x-k8s.io/sandbox-template-ref-hash"] !== undefined,
    );
    expect(labelled.metadata.labels?.["agents.x-k8s.io/sandbox-template-ref-hash"]).toBe(
      "cede6d20",
    );
    const path =
      "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/python-template-network-policy";
    const policy = await eventually(
      () => f.http(path),
      (r) => r.status === 200,
    );
    expect(policy.body.spec).toMatchObject({
      podSelector: { matchLabels: { "agents.x-k8s.io/sandbox-template-ref-hash": "cede6d20" } },
      policyTypes: ["Ingress", "Egress"],
    });
    expect(JSON.stringify(policy.body.spec)).toContain("10.0.0.0/8");
    expect((policy.body.metadata as { ownerReferences: unknown[] }).ownerReferences).toEqual([
      expect.objectContaining({
        kind: "SandboxTemplate",
        name: "python-template",
        controller: true,
      }),
    ]);
    await f.custom.patchNamespacedCustomObject(
      {
        ...TEMPLATES,
        name: "python-template",
        body: { spec: { networkPolicyManagement: "Unmanaged" } },
      },
      MERGE,
    );
    await eventually(
      () => f.http(path),
      (r) => r.status === 404,
    );
  });

  it("§9.11 / §8.4–8.5 a claim on a warm pool binds a ready member named <pool>-xxxxx; readyReplicas drops, then the pool refills", async () => {
    const f = await clusterFixture();
    current = f;
    await f.custom.createNamespacedCustomObject({ ...TEMPLATES, body: template("tpl") });
    await f.custom.createNamespacedCustomObject({ ...POOLS, body: pool("warm", "tpl", 2) });
    const full = await eventually(
      () => getPool(f, "warm"),
      (p) => p.status?.readyReplicas === 2,
    );
    expect(full.status).toMatchObject({
      replicas: 2,
      readyReplicas: 2,
      observedGeneration: full.metadata.generation,
      selector: `agents.x-k8s.io/warm-pool-sandbox=${nameHash("warm")}`,
    });
    const members = await listSandboxes(f);
    expect(members.map((m) => m.metadata.name)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^warm-[bcdfghjklmnpqrstvwxz2456789]{5}$/)]),
    );
    const member = members[0];
    expect(member?.metadata.labels).toMatchObject({
      "agents.x-k8s.io/launch-type": "warm",
      "agents.x-k8s.io/created-by": "controller",
      "agents.x-k8s.io/warm-pool-sandbox": nameHash("warm"),
      "agents.x-k8s.io/sandbox-template-ref-hash": nameHash("tpl"),
    });
    expect(member?.metadata.ownerReferences?.[0]).toMatchObject({
      kind: "SandboxWarmPool",
      name: "warm",
      controller: true,
    });

    const podUids = new Map(
      (await f.core.listNamespacedPod({ namespace: "default" })).items.map((p) => [
        p.metadata?.name,
        p.metadata?.uid,
      ]),
    );
    // Every status write of the pool, through a watch: readyReplicas must drop and come back.
    const seen: number[] = [];
    const watch = await new k8s.Watch(f.kc).watch(
      "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/default/sandboxwarmpools",
      { resourceVersion: full.metadata.resourceVersion },
      (_type, object: CustomObject) => {
        seen.push(object.status?.readyReplicas ?? -1);
      },
      () => undefined,
    );
    await f.custom.createNamespacedCustomObject({ ...CLAIMS, body: claim("my-claim", "warm") });
    const bound = await eventually(
      () => getClaim(f, "my-claim"),
      (c) => c.status?.sandbox?.name !== undefined && conditionOf(c, "Ready")?.status === "True",
    );
    const sandboxName = bound.status?.sandbox?.name ?? "";
    expect(sandboxName).toMatch(/^warm-/);
    expect(members.map((m) => m.metadata.name)).toContain(sandboxName);
    expect(bound.metadata.annotations?.["agents.x-k8s.io/sandbox-name"]).toBe(sandboxName);
    expect(conditionOf(bound, "Ready")).toMatchObject({
      reason: "DependenciesReady",
      observedGeneration: bound.metadata.generation,
    });
    const adopted = await getSandbox(f, sandboxName);
    expect(adopted.metadata.ownerReferences).toEqual([
      expect.objectContaining({
        kind: "SandboxClaim",
        name: "my-claim",
        uid: bound.metadata.uid,
        controller: true,
      }),
    ]);
    expect(adopted.metadata.labels?.["agents.x-k8s.io/warm-pool-sandbox"]).toBeUndefined();
    expect(adopted.metadata.labels?.["agents.x-k8s.io/claim-uid"]).toBe(bound.metadata.uid);
    // The running pod is relabelled (it leaves the pool's selector), not restarted.
    const pod = await eventually(
      () => f.core.readNamespacedPod({ name: sandboxName, namespace: "default" }),
      (p) => p.metadata?.labels?.["agents.x-k8s.io/warm-pool-sandbox"] === undefined,
    );
    expect(pod.metadata?.uid).toBe(podUids.get(sandboxName));
    expect(pod.status?.phase).toBe("Running");
    await eventually(
      async () => (await listSandboxes(f)).length,
      (n) => n === 3,
    );
    await eventually(
      () => getPool(f, "warm"),
      (p) => p.status?.readyReplicas === 2 && p.status.replicas === 2,
    );
    watch.abort();
    const dropped = seen.findIndex((n) => n < 2);
    expect(dropped).toBeGreaterThanOrEqual(0);
    expect(seen.slice(dropped)).toContain(2);
  });

  it("§9.11 / §8.5 a claim with env cold-starts a Sandbox named after the claim, with the env in its first container", async () => {
    const f = await clusterFixture();
    current = f;
    await f.custom.createNamespacedCustomObject({
      ...TEMPLATES,
      body: template("tpl", { envVarsInjectionPolicy: "Allowed" }),
    });
    await f.custom.createNamespacedCustomObject({ ...POOLS, body: pool("warm", "tpl", 1) });
    await eventually(
      () => getPool(f, "warm"),
      (p) => p.status?.readyReplicas === 1,
    );
    await f.custom.createNamespacedCustomObject({
      ...CLAIMS,
      body: claim("cold-claim", "warm", { env: [{ name: "GREETING", value: "hello" }] }),
    });
    const bound = await eventually(
      () => getClaim(f, "cold-claim"),
      (c) => conditionOf(c, "Ready")?.status === "True",
    );
    expect(bound.status?.sandbox?.name).toBe("cold-claim");
    const cold = await getSandbox(f, "cold-claim");
    expect(cold.metadata.labels).toMatchObject({
      "agents.x-k8s.io/launch-type": "cold",
      "agents.x-k8s.io/claim-uid": bound.metadata.uid,
    });
    expect(cold.metadata.ownerReferences?.[0]).toMatchObject({
      kind: "SandboxClaim",
      name: "cold-claim",
    });
    const pod = await f.core.readNamespacedPod({ name: "cold-claim", namespace: "default" });
    expect(pod.spec?.containers[0]?.env).toEqual([{ name: "GREETING", value: "hello" }]);
    // The warm member was left alone.
    expect((await getPool(f, "warm")).status?.readyReplicas).toBe(1);
  });

  it("§8.5 a claim whose template disallows env is Ready=False EnvVarsInjectionRejected; one on a missing pool is WarmPoolNotFound", async () => {
    const f = await clusterFixture();
    current = f;
    await f.custom.createNamespacedCustomObject({ ...TEMPLATES, body: template("tpl") });
    await f.custom.createNamespacedCustomObject({ ...POOLS, body: pool("warm", "tpl", 0) });
    await f.custom.createNamespacedCustomObject({
      ...CLAIMS,
      body: claim("rejected", "warm", { env: [{ name: "A", value: "b" }] }),
    });
    await f.custom.createNamespacedCustomObject({ ...CLAIMS, body: claim("lost", "nowhere") });
    const rejected = await eventually(
      () => getClaim(f, "rejected"),
      (c) => conditionOf(c, "Ready") !== undefined,
    );
    expect(conditionOf(rejected, "Ready")).toMatchObject({
      status: "False",
      reason: "EnvVarsInjectionRejected",
    });
    const lost = await eventually(
      () => getClaim(f, "lost"),
      (c) => conditionOf(c, "Ready") !== undefined,
    );
    expect(conditionOf(lost, "Ready")).toMatchObject({
      status: "False",
      reason: "WarmPoolNotFound",
      message: 'SandboxWarmPool "nowhere" not found',
    });
    await f.sim.settled();
    expect(await listSandboxes(f)).toEqual([]);
  });

  it("§8.5 with no warm member a claim cold-starts at once; shutdownPolicy Delete at lifecycle.shutdownTime deletes the claim and GC takes its Sandbox and Pod", async () => {
    const f = await clusterFixture();
    current = f;
    await f.custom.createNamespacedCustomObject({ ...TEMPLATES, body: template("tpl") });
    await f.custom.createNamespacedCustomObject({ ...POOLS, body: pool("empty", "tpl", 0) });
    const shutdownTime = virtualTimeIn(f, 30_000);
    await f.custom.createNamespacedCustomObject({
      ...CLAIMS,
      body: claim("brief", "empty", { lifecycle: { shutdownTime, shutdownPolicy: "Delete" } }),
    });
    const bound = await eventually(
      () => getClaim(f, "brief"),
      (c) => conditionOf(c, "Ready")?.status === "True",
    );
    expect(bound.status?.sandbox?.name).toBe("brief");
    f.clock.advance(30_000);
    await eventually(
      async () => ({
        claims: ((await f.custom.listNamespacedCustomObject({ ...CLAIMS })) as { items: unknown[] })
          .items.length,
        sandboxes: (await listSandboxes(f)).length,
        pods: (await f.core.listNamespacedPod({ namespace: "default" })).items.length,
      }),
      (left) => left.claims === 0 && left.sandboxes === 0 && left.pods === 0,
    );
  });

  it("§8.5 members without pod IPs are waited for 2 s (virtual) after the claim's creation, then the claim cold-starts", async () => {
    const f = await clusterFixture();
    current = f;
    f.sim.kubelet?.faults.set({ image: "no-ip" }, { kind: "NoPodIP" });
    await f.custom.createNamespacedCustomObject({
      ...TEMPLATES,
      body: template("tpl", {
        podTemplate: { spec: { containers: [{ name: "main", image: "no-ip" }] } },
      }),
    });
    await f.custom.createNamespacedCustomObject({ ...POOLS, body: pool("warm", "tpl", 1) });
    await eventually(
      () => getPool(f, "warm"),
      (p) => p.status?.replicas === 1,
    );
    await f.custom.createNamespacedCustomObject({ ...CLAIMS, body: claim("patient", "warm") });
    await eventually(
      () => getClaim(f, "patient"),
      (c) => c.metadata.annotations?.["agents.x-k8s.io/controller-first-observed-at"] !== undefined,
    );
    await f.sim.settled();
    expect((await listSandboxes(f)).map((s) => s.metadata.name)).not.toContain("patient");
    f.clock.advance(2_000);
    const cold = await eventually(
      () => listSandboxes(f),
      (items) => items.some((s) => s.metadata.name === "patient"),
    );
    expect(
      cold.find((s) => s.metadata.name === "patient")?.metadata.labels?.[
        "agents.x-k8s.io/launch-type"
      ],
    ).toBe("cold");
  });

  it("§8.5 claim expiry with Retain: Ready=False ClaimExpired, the Sandbox is deleted and the claim stays", async () => {
    const f = await clusterFixture();
    current = f;
    await f.custom.createNamespacedCustomObject({ ...TEMPLATES, body: template("tpl") });
    await f.custom.createNamespacedCustomObject({ ...POOLS, body: pool("p", "tpl", 0) });
    const shutdownTime = virtualTimeIn(f, 5_000);
    await f.custom.createNamespacedCustomObject({
      ...CLAIMS,
      body: claim("kept", "p", { lifecycle: { shutdownTime } }),
    });
    await eventually(
      () => getClaim(f, "kept"),
      (c) => conditionOf(c, "Ready")?.status === "True",
    );
    f.clock.advance(5_000);
    const expired = await eventually(
      () => getClaim(f, "kept"),
      (c) => conditionOf(c, "Ready")?.reason === "ClaimExpired",
    );
    expect(conditionOf(expired, "Ready")).toMatchObject({
      status: "False",
      message: "Claim expired. Sandbox cleanup initiated.",
    });
    await eventually(
      () => listSandboxes(f),
      (items) => items.length === 0,
    );
    expect((await getClaim(f, "kept")).metadata.name).toBe("kept");
  });

  it("§9.8 / §8.5 DeleteForeground: the claim stays with a deletionTimestamp until its Sandbox and terminating Pod are gone", async () => {
    const f = await clusterFixture({
      kubelet: {
        runtimes: {
          stubborn: () => ({ command: ["sh", "-c", 'trap "" TERM; exec sleep 100000'] }),
        },
      },
    });
    current = f;
    await f.custom.createNamespacedCustomObject({
      ...TEMPLATES,
      body: template("tpl", {
        podTemplate: {
          spec: {
            terminationGracePeriodSeconds: 10,
            containers: [{ name: "main", image: "stubborn" }],
          },
        },
      }),
    });
    await f.custom.createNamespacedCustomObject({ ...POOLS, body: pool("p", "tpl", 0) });
    const shutdownTime = virtualTimeIn(f, 5_000);
    await f.custom.createNamespacedCustomObject({
      ...CLAIMS,
      body: claim("fg", "p", { lifecycle: { shutdownTime, shutdownPolicy: "DeleteForeground" } }),
    });
    await eventually(
      () => getClaim(f, "fg"),
      (c) => conditionOf(c, "Ready")?.status === "True",
    );
    f.clock.advance(5_000);
    const deleting = await eventually(
      () => getClaim(f, "fg"),
      (c) => c.metadata.deletionTimestamp !== undefined,
    );
    expect(deleting.metadata.finalizers).toContain("foregroundDeletion");
    const terminating = await eventually(
      () => f.core.readNamespacedPod({ name: "fg", namespace: "default" }),
      (p) => p.metadata?.deletionTimestamp !== undefined,
    );
    expect(terminating.metadata?.deletionGracePeriodSeconds).toBe(10);
    await f.sim.settled();
    expect((await getClaim(f, "fg")).metadata.name).toBe("fg");
    f.clock.advance(10_000);
    await eventually(
      async () => ({
        claims: ((await f.custom.listNamespacedCustomObject({ ...CLAIMS })) as { items: unknown[] })
          .items.length,
        pods: (await f.core.listNamespacedPod({ namespace: "default" })).items.length,
      }),
      (left) => left.claims === 0 && left.pods === 0,
    );
  });

  it("§8.5 additionalPodMetadata with a label outside the allowed domains is Ready=False InvalidMetadata", async () => {
    const f = await clusterFixture();
    current = f;
    await f.custom.createNamespacedCustomObject({ ...TEMPLATES, body: template("tpl") });
    await f.custom.createNamespacedCustomObject({ ...POOLS, body: pool("p", "tpl", 0) });
    await f.custom.createNamespacedCustomObject({
      ...CLAIMS,
      body: claim("bad-meta", "p", { additionalPodMetadata: { labels: { team: "a" } } }),
    });
    await f.custom.createNamespacedCustomObject({
      ...CLAIMS,
      body: claim("good-meta", "p", {
        additionalPodMetadata: { labels: { "sandbox.users.io/team": "a" } },
      }),
    });
    const bad = await eventually(
      () => getClaim(f, "bad-meta"),
      (c) => conditionOf(c, "Ready") !== undefined,
    );
    expect(conditionOf(bad, "Ready")).toMatchObject({ status: "False", reason: "InvalidMetadata" });
    await eventually(
      () => getClaim(f, "good-meta"),
      (c) => conditionOf(c, "Ready")?.status === "True",
    );
    const pod = await f.core.readNamespacedPod({ name: "good-meta", namespace: "default" });
    expect(pod.metadata?.labels?.["sandbox.users.io/team"]).toBe("a");
  });

  it("§8.5 / A9 ttlSecondsAfterFinished: the claim mirrors Finished from its Sandbox and is deleted that long after it", async () => {
    const f = await clusterFixture();
    current = f;
    f.sim.kubelet?.faults.set({ image: "job" }, { kind: "Exit", code: 0 });
    await f.custom.createNamespacedCustomObject({
      ...TEMPLATES,
      body: template("tpl", {
        podTemplate: { spec: { containers: [{ name: "main", image: "job" }] } },
      }),
    });
    await f.custom.createNamespacedCustomObject({ ...POOLS, body: pool("p", "tpl", 0) });
    await f.custom.createNamespacedCustomObject({
      ...CLAIMS,
      body: claim("once", "p", {
        lifecycle: { ttlSecondsAfterFinished: 10, shutdownPolicy: "Delete" },
      }),
    });
    const finished = await eventually(
      () => getClaim(f, "once"),
      (c) => conditionOf(c, "Finished")?.status === "True",
    );
    expect(conditionOf(finished, "Finished")?.reason).toBe("PodSucceeded");
    expect(conditionOf(finished, "Ready")).toMatchObject({
      status: "False",
      reason: "PodSucceeded",
    });
    await f.sim.settled();
    f.clock.advance(9_000);
    await f.sim.settled();
    expect((await getClaim(f, "once")).metadata.name).toBe("once");
    f.clock.advance(1_000);
    await eventually(
      async () =>
        ((await f.custom.listNamespacedCustomObject({ ...CLAIMS })) as { items: unknown[] }).items
          .length,
      (n) => n === 0,
    );
  });

  it("§8.5 the official client's wait works: a watch on the claim with fieldSelector metadata.name and resourceVersion 0 sees status.sandbox.name and Ready", async () => {
    const f = await clusterFixture();
    current = f;
    await f.custom.createNamespacedCustomObject({ ...TEMPLATES, body: template("tpl") });
    await f.custom.createNamespacedCustomObject({ ...POOLS, body: pool("p", "tpl", 1) });
    await f.custom.createNamespacedCustomObject({ ...CLAIMS, body: claim("waited", "p") });
    const { events } = await watchUntil(
      f.kc,
      {
        path: "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/default/sandboxclaims",
        query: { fieldSelector: "metadata.name=waited", resourceVersion: "0" },
      },
      (seen) =>
        seen.some((event) => {
          const object = event.object as unknown as CustomObject;
          return (
            object.status?.sandbox?.name !== undefined &&
            conditionOf(object, "Ready")?.status === "True"
          );
        }),
    );
    const last = events.at(-1)?.object as unknown as CustomObject;
    expect(last.metadata.name).toBe("waited");
    // Whether or not the member had its IPs when the claim came, it is adopted: the clock never
    // reaches the 2 s grace after which the claim would cold-start instead.
    expect(last.status?.sandbox?.name).toMatch(/^p-/);
    expect(
      events.every((event) => (event.object as unknown as CustomObject).metadata.name === "waited"),
    ).toBe(true);
  });
});
