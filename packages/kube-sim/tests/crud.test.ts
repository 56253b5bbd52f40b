/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- client-node's model classes are plain data, and request bodies are object literals as in its own examples. */
import { ManualClock } from "../src/index.ts";
import { describe, expect, it } from "vitest";
import { SANDBOXES, SANDBOX_PATH, failure, metadataOf, sandbox, simFixture } from "./harness.ts";

describe("create, get, list (§4.1–§4.3, §9.1)", () => {
  it("§9.1 create answers 201 with uid, resourceVersion, creationTimestamp and generation; a second create is 409 AlreadyExists", async () => {
    const clock = new ManualClock("2026-11-29T13:35:00.250Z");
    await using f = await simFixture({ clock });
    const res = await f.http(SANDBOX_PATH, { method: "POST", body: sandbox("sb1") });
    expect(res.status).toBe(201);
    const meta = metadataOf(res.body);
    expect(meta.uid).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(meta.creationTimestamp).toBe("2026-11-29T13:35:00Z");
    expect(meta.generation).toBe(1);
    expect(meta.resourceVersion).toMatch(/^\d+$/);
    const again = await failure(
      f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb1") }),
    );
    expect(again.code).toBe(409);
    expect(again.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'sandboxes.agents.x-k8s.io "sb1" already exists',
      reason: "AlreadyExists",
      details: { name: "sb1", group: "agents.x-k8s.io", kind: "sandboxes" },
      code: 409,
    });
  });

  it("§9.1 get of a missing object is 404 with the exact Status body", async () => {
    await using f = await simFixture();
    const missing = await failure(
      f.custom.getNamespacedCustomObject({ ...SANDBOXES, name: "sb1" }),
    );
    expect(missing.code).toBe(404);
    expect(JSON.stringify(missing.status)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"sandboxes.agents.x-k8s.io \\"sb1\\" not found","reason":"NotFound","details":{"name":"sb1","group":"agents.x-k8s.io","kind":"sandboxes"},"code":404}',
    );
    const pod = await failure(f.core.readNamespacedPod({ namespace: "default", name: "p" }));
    expect(pod.status.message).toBe('pods "p" not found');
    expect(pod.status.details).toEqual({ name: "p", kind: "pods" });
  });

  it("§9.1 a labelSelector list returns only the pod of my-sandbox", async () => {
    await using f = await simFixture();
    const pod = (name: string, hash: string) => ({
      metadata: { name, labels: { "agents.x-k8s.io/sandbox-name-hash": hash } },
      spec: { containers: [{ name: "c", image: "busybox" }] },
    });
    await f.core.createNamespacedPod({ namespace: "default", body: pod("my-sandbox", "374de8f5") });
    await f.core.createNamespacedPod({ namespace: "default", body: pod("sandbox-1", "9b9033ee") });
    const list = await f.core.listNamespacedPod({
      namespace: "default",
      labelSelector: "agents.x-k8s.io/sandbox-name-hash=374de8f5",
    });
    expect(list.items.map((p) => p.metadata?.name)).toEqual(["my-sandbox"]);
  });

  it("§4.3 label selectors support ==, !=, in, notin, exists and !exists; a malformed one is 400", async () => {
    await using f = await simFixture();
    for (const [name, labels] of [
      ["a", { env: "prod", tier: "web" }],
      ["b", { env: "dev" }],
      ["c", { tier: "db" }],
    ] as const) {
      await f.core.createNamespacedConfigMap({
        namespace: "default",
        body: { metadata: { name, labels } },
      });
    }
    const names = async (labelSelector: string) =>
      (await f.core.listNamespacedConfigMap({ namespace: "default", labelSelector })).items.map(
        (c) => c.metadata?.name,
      );
    expect(await names("env==prod")).toEqual(["a"]);
    expect(await names("env!=prod")).toEqual(["b", "c"]);
    expect(await names("env in (prod,dev)")).toEqual(["a", "b"]);
    expect(await names("env notin (prod)")).toEqual(["b", "c"]);
    expect(await names("tier")).toEqual(["a", "c"]);
    expect(await names("!tier")).toEqual(["b"]);
    expect(await names("env=prod,tier=web")).toEqual(["a"]);
    const bad = await f.http(
      "/api/v1/namespaces/default/configmaps?labelSelector=" + encodeURIComponent("env in (prod"),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toBe("BadRequest");
  });

  it("§4.3 field selectors: metadata.name on CRs, pod fields on pods, anything else is 400 field label not supported", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("one") });
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("two") });
    const list = (await f.custom.listNamespacedCustomObject({
      ...SANDBOXES,
      fieldSelector: "metadata.name=two",
    })) as { items: unknown[] };
    expect(list.items.map((item) => metadataOf(item).name)).toEqual(["two"]);
    const bad = await failure(
      f.custom.listNamespacedCustomObject({ ...SANDBOXES, fieldSelector: "spec.foo=x" }),
    );
    expect(bad.code).toBe(400);
    expect(bad.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "field label not supported: spec.foo",
      reason: "BadRequest",
      code: 400,
    });
    await f.core.createNamespacedPod({
      namespace: "default",
      body: {
        metadata: { name: "p1" },
        spec: { restartPolicy: "Never", containers: [{ name: "c", image: "i" }] },
      },
    });
    await f.core.createNamespacedPod({
      namespace: "default",
      body: { metadata: { name: "p2" }, spec: { containers: [{ name: "c", image: "i" }] } },
    });
    const pods = await f.core.listNamespacedPod({
      namespace: "default",
      fieldSelector: "spec.restartPolicy!=Never",
    });
    expect(pods.items.map((p) => p.metadata?.name)).toEqual(["p2"]);
  });

  it("§4.3 the list resourceVersion is the current global counter; core items omit kind/apiVersion, CR items keep them", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb1") });
    await f.core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "cm" } },
    });
    const crs = await f.http(SANDBOX_PATH);
    const cms = await f.http("/api/v1/namespaces/default/configmaps");
    expect(metadataOf(crs.body).resourceVersion).toBe(metadataOf(cms.body).resourceVersion);
    expect(Number(metadataOf(crs.body).resourceVersion)).toBeGreaterThan(
      Number(metadataOf((crs.body.items as unknown[])[0]).resourceVersion),
    );
    expect(crs.body.kind).toBe("SandboxList");
    expect((crs.body.items as Record<string, unknown>[])[0]).toMatchObject({
      kind: "Sandbox",
      apiVersion: "agents.x-k8s.io/v1beta1",
    });
    expect(cms.body.kind).toBe("ConfigMapList");
    expect(Object.keys((cms.body.items as Record<string, unknown>[])[0] ?? {})).not.toContain(
      "kind",
    );
  });

  it("§4.3 resourceVersionMatch: without resourceVersion, with continue, unknown, or Exact at 0 is 422 on ListOptions.meta.k8s.io", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb1") });
    const forbidden = (detail: string) => ({
      reason: "FieldValueForbidden",
      message: `Forbidden: ${detail}`,
      field: "resourceVersionMatch",
    });
    const refused = async (query: string) => {
      const res = await f.http(`${SANDBOX_PATH}?${query}`);
      expect(res.status).toBe(422);
      expect(res.body.reason).toBe("Invalid");
      const details = res.body.details as { group: string; kind: string; causes: unknown[] };
      expect([details.group, details.kind]).toEqual(["meta.k8s.io", "ListOptions"]);
      return { message: res.body.message, causes: details.causes };
    };
    expect(await refused("resourceVersionMatch=NotOlderThan")).toEqual({
      message:
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      causes: [forbidden("resourceVersionMatch is forbidden unless resourceVersion is provided")],
    });
    expect((await refused("resourceVersion=0&resourceVersionMatch=Exact")).causes).toEqual([
      forbidden('resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
    ]);
    expect((await refused("resourceVersion=0&resourceVersionMatch=Newest")).causes).toEqual([
      {
        reason: "FieldValueNotSupported",
        message: 'Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
        field: "resourceVersionMatch",
      },
    ]);
    expect(
      (await refused("resourceVersion=1&resourceVersionMatch=NotOlderThan&continue=x")).causes,
    ).toEqual([forbidden("resourceVersionMatch is forbidden when continue is provided")]);
    const listed = await f.http(
      `${SANDBOX_PATH}?resourceVersion=0&resourceVersionMatch=NotOlderThan`,
    );
    expect([listed.status, (listed.body.items as unknown[]).length]).toEqual([200, 1]);
  });

  it("§4.3 limit and continue page through a list at one resourceVersion", async () => {
    await using f = await simFixture();
    for (const name of ["a", "b", "c"])
      await f.core.createNamespacedConfigMap({
        namespace: "default",
        body: { metadata: { name } },
      });
    const first = await f.core.listNamespacedConfigMap({ namespace: "default", limit: 2 });
    expect(first.items.map((c) => c.metadata?.name)).toEqual(["a", "b"]);
    // Removing a served item must not shift the next page (the token remembers a key, not an offset).
    await f.core.deleteNamespacedConfigMap({ namespace: "default", name: "a" });
    const second = await f.core.listNamespacedConfigMap({
      namespace: "default",
      limit: 2,
      _continue: first.metadata?._continue ?? "",
    });
    expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    expect(second.items.map((c) => c.metadata?.name)).toEqual(["c"]);
    expect(second.metadata?._continue).toBe("");
  });

  it('§4.1 create in a missing namespace is 404 namespaces "x" not found', async () => {
    await using f = await simFixture();
    const res = await f.http("/apis/agents.x-k8s.io/v1beta1/namespaces/x/sandboxes", {
      method: "POST",
      body: sandbox("sb1"),
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'namespaces "x" not found',
      reason: "NotFound",
      details: { name: "x", kind: "namespaces" },
      code: 404,
    });
    await f.core.createNamespace({ body: { metadata: { name: "x" } } });
    expect(
      (
        await f.http("/apis/agents.x-k8s.io/v1beta1/namespaces/x/sandboxes", {
          method: "POST",
          body: sandbox("sb1"),
        })
      ).status,
    ).toBe(201);
  });

  it("§4.1 a body namespace other than the URL's is 400; no name and no generateName is 422; a bad name is 422", async () => {
    await using f = await simFixture();
    const other = await f.http(SANDBOX_PATH, {
      method: "POST",
      body: { ...sandbox("sb1"), metadata: { name: "sb1", namespace: "other" } },
    });
    expect(other.status).toBe(400);
    expect(other.body.message).toBe(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
    const nameless = await f.http(SANDBOX_PATH, {
      method: "POST",
      body: { ...sandbox("x"), metadata: {} },
    });
    expect(nameless.status).toBe(422);
    expect(nameless.body.message).toBe(
      'Sandbox.agents.x-k8s.io "" is invalid: metadata.name: Required value: name or generateName is required',
    );
    const bad = await f.http(SANDBOX_PATH, { method: "POST", body: sandbox("Not_Valid") });
    expect(bad.status).toBe(422);
    expect((bad.body.details as { causes: { field: string }[] }).causes[0]?.field).toBe(
      "metadata.name",
    );
  });

  it("§2 generateName appends 5 characters from the K12 alphabet and retries a taken name", async () => {
    const suffixes = ["aaaaa", "aaaaa", "bbbbb"];
    await using f = await simFixture({ nameSuffix: () => suffixes.shift() ?? "zzzzz" });
    const body = { ...sandbox("x"), metadata: { generateName: "pool-" } };
    const first = await f.http(SANDBOX_PATH, { method: "POST", body });
    const second = await f.http(SANDBOX_PATH, { method: "POST", body });
    expect(metadataOf(first.body).name).toBe("pool-aaaaa");
    expect(metadataOf(second.body).name).toBe("pool-bbbbb");
  });

  it("§2 real generated names use only bcdfghjklmnpqrstvwxz2456789 and cut the prefix to 58", async () => {
    await using f = await simFixture();
    const prefix = "p".repeat(70);
    const res = await f.http("/api/v1/namespaces/default/configmaps", {
      method: "POST",
      body: { metadata: { generateName: prefix } },
    });
    const name = String(metadataOf(res.body).name);
    expect(name).toMatch(/^p{58}[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it("§2 one global resourceVersion counter is shared by all kinds and strictly increases", async () => {
    await using f = await simFixture();
    const a = await f.core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "a" } },
    });
    const b = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("b"),
    })) as unknown;
    const c = await f.core.createNamespacedService({
      namespace: "default",
      body: { metadata: { name: "c" }, spec: { ports: [{ port: 80 }] } },
    });
    const versions = [
      a.metadata?.resourceVersion,
      metadataOf(b).resourceVersion,
      c.metadata?.resourceVersion,
    ].map(Number);
    expect(versions[1]).toBe((versions[0] ?? 0) + 1);
    expect(versions[2]).toBe((versions[1] ?? 0) + 1);
  });

  it("§4.1 a create that carries a resourceVersion is refused", async () => {
    await using f = await simFixture();
    const res = await f.http("/api/v1/namespaces/default/configmaps", {
      method: "POST",
      body: { metadata: { name: "a", resourceVersion: "5" } },
    });
    expect(res.status).toBe(500);
    expect(res.body.message).toBe("resourceVersion should not be set on objects to be created");
  });

  it("§6.1 ValidatingAdmissionPolicy and its binding are stored cluster-scoped (evaluation is part 2)", async () => {
    await using f = await simFixture();
    const base = "/apis/admissionregistration.k8s.io/v1";
    const policy = await f.http(`${base}/validatingadmissionpolicies`, {
      method: "POST",
      body: {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicy",
        metadata: { name: "claim-quota", namespace: "ignored" },
        spec: { failurePolicy: "Fail", validations: [{ expression: "true" }] },
      },
    });
    expect(policy.status).toBe(201);
    expect(metadataOf(policy.body).namespace).toBeUndefined();
    expect(metadataOf(policy.body).generation).toBe(1);
    const binding = await f.http(`${base}/validatingadmissionpolicybindings`, {
      method: "POST",
      body: {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicyBinding",
        metadata: { name: "claim-quota-binding" },
        spec: { policyName: "claim-quota", validationActions: ["Deny"] },
      },
    });
    expect(binding.status).toBe(201);
    const list = await f.http(`${base}/validatingadmissionpolicybindings`);
    expect(
      (list.body.items as Record<string, unknown>[]).map((item) => metadataOf(item).name),
    ).toEqual(["claim-quota-binding"]);
    expect((await f.http(`${base}/namespaces/default/validatingadmissionpolicies`)).status).toBe(
      404,
    );
  });
});
