/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- client-node's model classes are plain data, and request bodies are object literals as in its own examples. */
import { describe, expect, it } from "vitest";
import {
  MERGE,
  SANDBOXES,
  SANDBOX_PATH,
  metadataOf,
  sandbox,
  simFixture,
  watchUntil,
  type Obj,
} from "./harness.ts";

describe("generation and the /status subresource (§2, §4.6, §9.5)", () => {
  it("§9.5 a spec change bumps generation; a label change does not", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb1") });
    const labelled = (await f.custom.patchNamespacedCustomObject(
      {
        ...SANDBOXES,
        name: "sb1",
        body: { metadata: { labels: { a: "1" }, annotations: { b: "2" }, finalizers: ["x.io/y"] } },
      },
      MERGE,
    )) as Obj;
    expect(metadataOf(labelled).generation).toBe(1);
    const specChanged = (await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "sb1", body: { spec: { operatingMode: "Suspended" } } },
      MERGE,
    )) as Obj;
    expect(metadataOf(specChanged).generation).toBe(2);
  });

  it("§9.5 a main-endpoint write that only touches status is a no-op: same resourceVersion and no watch event", async () => {
    await using f = await simFixture();
    const created = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("sb1"),
    })) as Obj;
    const rv = String(metadataOf(created).resourceVersion);
    const noop = (await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "sb1", body: { status: { podIPs: ["10.0.0.1"] } } },
      MERGE,
    )) as Obj;
    expect(metadataOf(noop).resourceVersion).toBe(rv);
    expect(noop.status).toBeUndefined();
    const put = await f.http(`${SANDBOX_PATH}/sb1`, {
      method: "PUT",
      body: { ...created, status: { podIPs: ["10.0.0.2"] } },
    });
    expect(metadataOf(put.body).resourceVersion).toBe(rv);
    // The first event after rv must be the label change, not the two no-op writes.
    await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "sb1", body: { metadata: { labels: { after: "noop" } } } },
      MERGE,
    );
    const { events } = await watchUntil(
      f.kc,
      { path: SANDBOX_PATH, query: { resourceVersion: rv } },
      (seen) => seen.length >= 1,
    );
    expect(events.map((e) => [e.type, metadataOf(e.object).labels])).toEqual([
      ["MODIFIED", { after: "noop" }],
    ]);
  });

  it("§9.5 a /status write bumps resourceVersion but not generation and keeps spec, labels and finalizers", async () => {
    await using f = await simFixture();
    const created = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("sb1"),
    })) as Obj;
    const rv = Number(metadataOf(created).resourceVersion);
    const status = {
      conditions: [
        {
          type: "Ready",
          status: "True",
          reason: "DependenciesReady",
          message: "ok",
          lastTransitionTime: "2026-11-29T13:35:00Z",
        },
      ],
    };
    const written = (await f.custom.patchNamespacedCustomObjectStatus(
      {
        ...SANDBOXES,
        name: "sb1",
        body: {
          metadata: { labels: { ignored: "yes" } },
          spec: { operatingMode: "Suspended" },
          status,
        },
      },
      MERGE,
    )) as Obj;
    expect(Number(metadataOf(written).resourceVersion)).toBe(rv + 1);
    expect(metadataOf(written).generation).toBe(1);
    expect(metadataOf(written).labels).toBeUndefined();
    expect((written.spec as Obj).operatingMode).toBe("Running");
    expect(written.status).toEqual(status);
    const replaced = (await f.custom.replaceNamespacedCustomObjectStatus({
      ...SANDBOXES,
      name: "sb1",
      body: { ...written, status: { podIPs: ["10.0.0.9"] } },
    })) as Obj;
    expect(replaced.status).toEqual({ podIPs: ["10.0.0.9"] });
    expect(metadataOf(replaced).generation).toBe(1);
  });

  it("§4.6 a /status write with a stale resourceVersion is 409; GET /status returns the whole object", async () => {
    await using f = await simFixture();
    const created = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("sb1"),
    })) as Obj;
    await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "sb1", body: { metadata: { labels: { a: "1" } } } },
      MERGE,
    );
    const stale = await f.http(`${SANDBOX_PATH}/sb1/status`, {
      method: "PATCH",
      contentType: "application/merge-patch+json",
      body: {
        metadata: { resourceVersion: metadataOf(created).resourceVersion },
        status: { podIPs: ["1.2.3.4"] },
      },
    });
    expect(stale.status).toBe(409);
    const whole = await f.http(`${SANDBOX_PATH}/sb1/status`);
    expect(whole.body).toMatchObject({ kind: "Sandbox", spec: { operatingMode: "Running" } });
  });

  it("§2 SandboxTemplate has no status subresource: any non-metadata change bumps generation and status is stored on the main endpoint", async () => {
    await using f = await simFixture();
    const templates = {
      group: "extensions.agents.x-k8s.io",
      version: "v1beta1",
      namespace: "default",
      plural: "sandboxtemplates",
    };
    await f.custom.createNamespacedCustomObject({
      ...templates,
      body: {
        apiVersion: "extensions.agents.x-k8s.io/v1beta1",
        kind: "SandboxTemplate",
        metadata: { name: "t1" },
        spec: { podTemplate: { spec: { containers: [{ name: "c", image: "i" }] } } },
      },
    });
    const res = await f.http(
      "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/default/sandboxtemplates/t1",
      {
        method: "PATCH",
        contentType: "application/merge-patch+json",
        body: { spec: { envVarsInjectionPolicy: "Allowed" } },
      },
    );
    expect(res.status).toBe(200);
    expect(metadataOf(res.body).generation).toBe(2);
  });

  it("§2 Pods: status is dropped on create and on the main endpoint, and written through /status", async () => {
    await using f = await simFixture();
    const pod = await f.core.createNamespacedPod({
      namespace: "default",
      body: {
        metadata: { name: "p" },
        spec: { containers: [{ name: "c", image: "i" }] },
        status: { phase: "Running" },
      },
    });
    expect(pod.status).toBeUndefined();
    const status = await f.core.patchNamespacedPodStatus(
      {
        namespace: "default",
        name: "p",
        body: { status: { phase: "Running", podIP: "10.244.0.5" } },
      },
      MERGE,
    );
    expect(status.status?.podIP).toBe("10.244.0.5");
    expect(status.metadata?.generation).toBe(1);
    const list = await f.core.listNamespacedPod({
      namespace: "default",
      fieldSelector: "status.podIP=10.244.0.5",
    });
    expect(list.items).toHaveLength(1);
  });
});

describe("the /scale subresource (§4.7)", () => {
  it("§4.7 a SandboxWarmPool's Scale shows spec and status replicas and the selector; writing it bumps generation", async () => {
    await using f = await simFixture();
    const pools = {
      group: "extensions.agents.x-k8s.io",
      version: "v1beta1",
      namespace: "default",
      plural: "sandboxwarmpools",
    };
    const path =
      "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/default/sandboxwarmpools/pool";
    await f.custom.createNamespacedCustomObject({
      ...pools,
      body: {
        apiVersion: "extensions.agents.x-k8s.io/v1beta1",
        kind: "SandboxWarmPool",
        metadata: { name: "pool" },
        spec: { sandboxTemplateRef: { name: "t" }, replicas: 2 },
      },
    });
    await f.custom.patchNamespacedCustomObjectStatus(
      {
        ...pools,
        name: "pool",
        body: {
          status: {
            replicas: 1,
            readyReplicas: 1,
            selector: "agents.x-k8s.io/warm-pool-sandbox=abc",
          },
        },
      },
      MERGE,
    );
    const scale = await f.http(`${path}/scale`);
    expect(scale.body).toMatchObject({
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata: { name: "pool" },
      spec: { replicas: 2 },
      status: { replicas: 1, selector: "agents.x-k8s.io/warm-pool-sandbox=abc" },
    });
    const patched = await f.http(`${path}/scale`, {
      method: "PATCH",
      contentType: "application/merge-patch+json",
      body: { spec: { replicas: 5 } },
    });
    expect(patched.body).toMatchObject({ spec: { replicas: 5 } });
    const pool = (await f.custom.getNamespacedCustomObject({ ...pools, name: "pool" })) as Obj;
    expect((pool.spec as Obj).replicas).toBe(5);
    expect(metadataOf(pool).generation).toBe(2);
    const stale = await f.http(`${path}/scale`, {
      method: "PUT",
      body: { ...scale.body, spec: { replicas: 3 } },
    });
    expect(stale.status).toBe(409);
  });
});
