import { describe, expect, it } from "vitest";
import {
  SANDBOXES,
  SANDBOX_PATH,
  failure,
  metadataOf,
  sandbox,
  simFixture,
  type Obj,
} from "./harness.ts";

describe("schemas, pruning and versions at the HTTP edge (§5, §9.6)", () => {
  it("§9.6 spec.replicas on a v1beta1 Sandbox is pruned and answered with a Warning header", async () => {
    await using f = await simFixture();
    const res = await f.http(SANDBOX_PATH, {
      method: "POST",
      body: sandbox("sb1", { replicas: 1 }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("warning")).toBe('299 - "unknown field \\"spec.replicas\\""');
    expect((res.body.spec as Obj).replicas).toBeUndefined();
    const stored = (await f.custom.getNamespacedCustomObject({ ...SANDBOXES, name: "sb1" })) as Obj;
    expect((stored.spec as Obj).replicas).toBeUndefined();
  });

  it("§5 fieldValidation=Strict turns an unknown field into 400; Ignore prunes silently", async () => {
    await using f = await simFixture();
    const strict = await f.http(`${SANDBOX_PATH}?fieldValidation=Strict`, {
      method: "POST",
      body: sandbox("sb1", { replicas: 1 }),
    });
    expect(strict.status).toBe(400);
    expect(strict.body.reason).toBe("BadRequest");
    expect(strict.body.message).toContain('unknown field "spec.replicas"');
    const ignore = await f.http(`${SANDBOX_PATH}?fieldValidation=Ignore`, {
      method: "POST",
      body: sandbox("sb1", { replicas: 1 }),
    });
    expect(ignore.status).toBe(201);
    expect(ignore.headers.get("warning")).toBeNull();
  });

  it("§5 defaults are applied on create (operatingMode Running, shutdownPolicy Retain)", async () => {
    await using f = await simFixture();
    const created = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("sb1"),
    })) as Obj;
    expect(created.spec).toMatchObject({ operatingMode: "Running", shutdownPolicy: "Retain" });
  });

  it("§5 an enum violation is 422 naming the Kind, with the cause", async () => {
    await using f = await simFixture();
    const bad = await failure(
      f.custom.createNamespacedCustomObject({
        ...SANDBOXES,
        body: sandbox("sb1", { operatingMode: "Paused" }),
      }),
    );
    expect(bad.code).toBe(422);
    // The CRD has a CEL rule, so Kubernetes adds that a blocking error kept it from running.
    expect(bad.status.message).toBe(
      'Sandbox.agents.x-k8s.io "sb1" is invalid: [spec.operatingMode: Unsupported value: "Paused": supported values: "Running", "Suspended", <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
    expect(bad.status.details).toMatchObject({
      name: "sb1",
      group: "agents.x-k8s.io",
      kind: "Sandbox",
    });
    expect((bad.status.details as { causes: Obj[] }).causes[0]).toMatchObject({
      reason: "FieldValueNotSupported",
      field: "spec.operatingMode",
    });
  });

  it("§9.6 an update that changes volumeClaimTemplates is 422 with the exact §5 body", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb1") });
    const vct = [
      {
        metadata: { name: "data" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      },
    ];
    const res = await f.http(`${SANDBOX_PATH}/sb1`, {
      method: "PATCH",
      contentType: "application/merge-patch+json",
      body: { spec: { volumeClaimTemplates: vct } },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Sandbox.agents.x-k8s.io \\"sb1\\" is invalid: spec: Invalid value: \\"object\\": volumeClaimTemplates is immutable","reason":"Invalid","details":{"name":"sb1","group":"agents.x-k8s.io","kind":"Sandbox","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \\"object\\": volumeClaimTemplates is immutable","field":"spec"}]},"code":422}',
    );
  });

  it("§5 v1alpha1 is served with the deprecation Warning and reads objects stored at v1beta1", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb1") });
    const res = await f.http("/apis/agents.x-k8s.io/v1alpha1/namespaces/default/sandboxes/sb1");
    expect(res.status).toBe(200);
    expect(res.body.apiVersion).toBe("agents.x-k8s.io/v1alpha1");
    expect(res.headers.get("warning")).toBe(
      '299 - "agents.x-k8s.io/v1alpha1 Sandbox is deprecated; use agents.x-k8s.io/v1beta1 Sandbox instead"',
    );
    const missing = await f.http(
      "/apis/agents.x-k8s.io/v1alpha1/namespaces/default/sandboxes/nope",
    );
    expect(missing.status).toBe(404);
    expect(missing.headers.get("warning")).toContain("v1alpha1 Sandbox is deprecated");
    const v1beta1 = await f.http(`${SANDBOX_PATH}/sb1`);
    expect(v1beta1.headers.get("warning")).toBeNull();
  });

  it("§5 a merge patch that introduces an unknown field warns and stores nothing new", async () => {
    await using f = await simFixture();
    const created = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("sb1"),
    })) as Obj;
    const res = await f.http(`${SANDBOX_PATH}/sb1`, {
      method: "PATCH",
      contentType: "application/merge-patch+json",
      body: { spec: { replicas: 0 } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("warning")).toBe('299 - "unknown field \\"spec.replicas\\""');
    expect(metadataOf(res.body).resourceVersion).toBe(metadataOf(created).resourceVersion);
  });
});

describe("v1alpha1 requests (§5)", () => {
  it("§5 a v1alpha1 create is stored at v1beta1 and answered at v1alpha1, with the deprecation warning", async () => {
    await using f = await simFixture();
    const path = "/apis/agents.x-k8s.io/v1alpha1/namespaces/default/sandboxes";
    const body = {
      apiVersion: "agents.x-k8s.io/v1alpha1",
      kind: "Sandbox",
      metadata: { name: "old" },
      spec: { podTemplate: { spec: { containers: [{ name: "c", image: "i" }] } } },
    };
    const created = await f.http(path, { method: "POST", body });
    expect(created.status).toBe(201);
    expect(created.body.apiVersion).toBe("agents.x-k8s.io/v1alpha1");
    expect(created.headers.get("warning")).toContain(
      "agents.x-k8s.io/v1alpha1 Sandbox is deprecated",
    );
    const stored = f.sim.store.get("agents.x-k8s.io/sandboxes", "default", "old");
    expect(stored?.apiVersion).toBe("agents.x-k8s.io/v1beta1");
    const list = await f.http(path);
    expect((list.body.items as Obj[]).map((item) => item.apiVersion)).toEqual([
      "agents.x-k8s.io/v1alpha1",
    ]);
  });

  it("§4.8 a watch with an unparseable resourceVersion is refused at once, not in the stream", async () => {
    await using f = await simFixture();
    const res = await f.http(`${SANDBOX_PATH}?watch=true&resourceVersion=abc`);
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe("Status");
  });
});

describe("several schema causes (§3, §5)", () => {
  it("§5 several causes are joined like Kubernetes' aggregate error: [a, b]", async () => {
    await using f = await simFixture();
    const res = await f.http(SANDBOX_PATH, {
      method: "POST",
      body: sandbox("sb1", { operatingMode: "Paused", shutdownPolicy: "Never" }),
    });
    expect(res.status).toBe(422);
    const causes = (res.body.details as { causes: { field: string; message: string }[] }).causes;
    expect(causes.map((c) => c.field).sort()).toEqual([
      "<nil>",
      "spec.operatingMode",
      "spec.shutdownPolicy",
    ]);
    expect(res.body.message).toBe(
      `Sandbox.agents.x-k8s.io "sb1" is invalid: [${causes.map((c) => `${c.field}: ${c.message}`).join(", ")}]`,
    );
  });
});

describe("defaults on read (§5)", () => {
  it("§5 an object stored without a default field is read back with it", async () => {
    await using f = await simFixture();
    // Written straight into the store, as an object from before a default existed would be.
    f.sim.store.create("agents.x-k8s.io/sandboxes", {
      ...sandbox("raw"),
      metadata: { name: "raw", namespace: "default", uid: "00000000-0000-4000-8000-000000000002" },
    });
    const read = (await f.custom.getNamespacedCustomObject({ ...SANDBOXES, name: "raw" })) as Obj;
    expect(read.spec).toMatchObject({ operatingMode: "Running", shutdownPolicy: "Retain" });
  });
});
