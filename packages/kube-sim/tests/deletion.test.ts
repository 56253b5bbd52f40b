/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- client-node's model classes are plain data, and request bodies are object literals as in its own examples. */
import { ManualClock } from "../src/index.ts";
import { describe, expect, it } from "vitest";
import {
  CLAIMS,
  MERGE,
  SANDBOXES,
  SANDBOX_PATH,
  failure,
  metadataOf,
  sandbox,
  simFixture,
  watchUntil,
  type Obj,
} from "./harness.ts";

function ownedBy(owner: Obj, kind: string, apiVersion: string): Obj[] {
  const meta = metadataOf(owner);
  return [
    {
      apiVersion,
      kind,
      name: meta.name,
      uid: meta.uid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
}

describe("delete, finalizers and garbage collection (§4.9, §9.7, §9.8)", () => {
  it("§9.7 a DELETE precondition with the wrong uid is 409 naming the Kind; a wrong resourceVersion too", async () => {
    await using f = await simFixture();
    const sb = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("sb1"),
    })) as Obj;
    const uid = String(metadataOf(sb).uid);
    const wrong = await failure(
      f.custom.deleteNamespacedCustomObject({
        ...SANDBOXES,
        name: "sb1",
        body: { preconditions: { uid: "u-wrong" } },
      }),
    );
    expect(wrong.code).toBe(409);
    expect(wrong.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `Operation cannot be fulfilled on Sandbox.agents.x-k8s.io "sb1": the UID in the precondition (u-wrong) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
      reason: "Conflict",
      details: { name: "sb1", group: "agents.x-k8s.io", kind: "Sandbox" },
      code: 409,
    });
    const rv = await f.http(`${SANDBOX_PATH}/sb1`, {
      method: "DELETE",
      body: { kind: "DeleteOptions", apiVersion: "v1", preconditions: { resourceVersion: "1" } },
    });
    expect(rv.status).toBe(409);
    expect(rv.body.message).toContain("the ResourceVersion in the precondition (1) does not match");
    expect((await f.http(`${SANDBOX_PATH}/sb1`)).status).toBe(200);
  });

  it("§4.9 an unsupported propagationPolicy is 422 Invalid on DeleteOptions.meta.k8s.io, and nothing is deleted", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb1") });
    const message =
      'Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"';
    const expected = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: ${message}`,
      reason: "Invalid",
      details: {
        group: "meta.k8s.io",
        kind: "DeleteOptions",
        causes: [{ reason: "FieldValueNotSupported", message, field: "propagationPolicy" }],
      },
      code: 422,
    };
    const inQuery = await f.http(`${SANDBOX_PATH}/sb1?propagationPolicy=Sideways`, {
      method: "DELETE",
    });
    expect([inQuery.status, inQuery.body]).toEqual([422, expected]);
    const inBody = await f.http(`${SANDBOX_PATH}/sb1`, {
      method: "DELETE",
      body: { propagationPolicy: "Sideways" },
    });
    expect([inBody.status, inBody.body]).toEqual([422, expected]);
    expect((await f.http(`${SANDBOX_PATH}/sb1`)).status).toBe(200);
  });

  it("§4.9 deleting a CR without finalizers answers the Success Status and sends DELETED with a new resourceVersion", async () => {
    await using f = await simFixture();
    const sb = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("sb1"),
    })) as Obj;
    const rv = String(metadataOf(sb).resourceVersion);
    const res = await f.http(`${SANDBOX_PATH}/sb1`, { method: "DELETE" });
    expect(res.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: {
        name: "sb1",
        group: "agents.x-k8s.io",
        kind: "sandboxes",
        uid: metadataOf(sb).uid,
      },
    });
    const { events } = await watchUntil(
      f.kc,
      { path: SANDBOX_PATH, query: { resourceVersion: rv } },
      (seen) => seen.length >= 1,
    );
    expect(events[0]?.type).toBe("DELETED");
    expect(Number(metadataOf(events[0]?.object).resourceVersion)).toBe(Number(rv) + 1);
    expect((await f.http(`${SANDBOX_PATH}/sb1`)).status).toBe(404);
  });

  it("§9.7 with a finalizer: deletionTimestamp set, generation + 1, 200 with the object; removing it deletes and sends DELETED", async () => {
    const clock = new ManualClock("2026-11-29T14:00:00.900Z");
    await using f = await simFixture({ clock });
    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: { ...sandbox("sb1"), metadata: { name: "sb1", finalizers: ["berth.dev/cleanup"] } },
    });
    const res = await f.http(`${SANDBOX_PATH}/sb1`, { method: "DELETE" });
    expect(res.status).toBe(200);
    expect(metadataOf(res.body)).toMatchObject({
      deletionTimestamp: "2026-11-29T14:00:00Z",
      deletionGracePeriodSeconds: 0,
      generation: 2,
      finalizers: ["berth.dev/cleanup"],
    });
    const again = await f.http(`${SANDBOX_PATH}/sb1`, { method: "DELETE" });
    expect(metadataOf(again.body).resourceVersion).toBe(metadataOf(res.body).resourceVersion);
    const adding = await f.http(`${SANDBOX_PATH}/sb1`, {
      method: "PATCH",
      contentType: "application/merge-patch+json",
      body: { metadata: { finalizers: ["berth.dev/cleanup", "x.io/new"] } },
    });
    expect(adding.status).toBe(422);
    expect(adding.body.message).toBe(
      'Sandbox.agents.x-k8s.io "sb1" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"x.io/new"}',
    );
    const rv = String(metadataOf(res.body).resourceVersion);
    const emptied = await f.http(`${SANDBOX_PATH}/sb1`, {
      method: "PATCH",
      contentType: "application/merge-patch+json",
      body: { metadata: { finalizers: null } },
    });
    expect(emptied.status).toBe(200);
    expect((await f.http(`${SANDBOX_PATH}/sb1`)).status).toBe(404);
    const { events } = await watchUntil(
      f.kc,
      { path: SANDBOX_PATH, query: { resourceVersion: rv } },
      (seen) => seen.some((e) => e.type === "DELETED"),
    );
    expect(events.map((e) => e.type)).toContain("DELETED");
    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: { ...sandbox("sb2"), metadata: { name: "sb2", finalizers: ["x.io/y"] } },
    });
    await f.http(`${SANDBOX_PATH}/sb2`, { method: "DELETE" });
    const conflict = await failure(
      f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb2") }),
    );
    expect(conflict.status.message).toBe(
      'object is being deleted: sandboxes.agents.x-k8s.io "sb2" already exists',
    );
  });

  it("§9.8 deleting a Sandbox garbage-collects its Pod, Service and PVCs (background)", async () => {
    await using f = await simFixture();
    const sb = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("my-sandbox"),
    })) as Obj;
    const ownerReferences = ownedBy(sb, "Sandbox", "agents.x-k8s.io/v1beta1") as never;
    await f.core.createNamespacedPod({
      namespace: "default",
      body: {
        metadata: { name: "my-sandbox", ownerReferences },
        spec: { containers: [{ name: "c", image: "i" }] },
      },
    });
    await f.core.createNamespacedService({
      namespace: "default",
      body: { metadata: { name: "my-sandbox", ownerReferences }, spec: { ports: [{ port: 80 }] } },
    });
    await f.core.createNamespacedPersistentVolumeClaim({
      namespace: "default",
      body: {
        metadata: { name: "data-my-sandbox", ownerReferences },
        spec: { accessModes: ["ReadWriteOnce"] },
      },
    });
    await f.core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "unowned" } },
    });
    await f.custom.deleteNamespacedCustomObject({ ...SANDBOXES, name: "my-sandbox" });
    await f.sim.settled();
    expect((await f.core.listNamespacedPod({ namespace: "default" })).items).toEqual([]);
    expect((await f.core.listNamespacedService({ namespace: "default" })).items).toEqual([]);
    expect(
      (await f.core.listNamespacedPersistentVolumeClaim({ namespace: "default" })).items,
    ).toEqual([]);
    expect(
      (await f.core.listNamespacedConfigMap({ namespace: "default" })).items.map(
        (c) => c.metadata?.name,
      ),
    ).toEqual(["unowned"]);
  });

  it("§4.9 an owner counts as missing when no object has its uid, even if one with the same name exists", async () => {
    await using f = await simFixture();
    const ghost = {
      apiVersion: "agents.x-k8s.io/v1beta1",
      kind: "Sandbox",
      name: "sb1",
      uid: "00000000-0000-4000-8000-000000000001",
    };
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb1") });
    await f.core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "orphaned", ownerReferences: [ghost] } },
    });
    await f.sim.settled();
    expect((await f.core.listNamespacedConfigMap({ namespace: "default" })).items).toEqual([]);
  });

  it("§9.8 a foreground delete of a claim keeps it (with foregroundDeletion) until its Sandbox and Pod are gone", async () => {
    await using f = await simFixture();
    const claim = (await f.custom.createNamespacedCustomObject({
      ...CLAIMS,
      body: {
        apiVersion: "extensions.agents.x-k8s.io/v1beta1",
        kind: "SandboxClaim",
        metadata: { name: "c1" },
        spec: { warmPoolRef: { name: "pool" } },
      },
    })) as Obj;
    const sb = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: {
        ...sandbox("c1"),
        metadata: {
          name: "c1",
          ownerReferences: ownedBy(claim, "SandboxClaim", "extensions.agents.x-k8s.io/v1beta1"),
          finalizers: ["test.io/hold"],
        },
      },
    })) as Obj;
    await f.core.createNamespacedPod({
      namespace: "default",
      body: {
        metadata: {
          name: "c1",
          ownerReferences: ownedBy(sb, "Sandbox", "agents.x-k8s.io/v1beta1") as never,
        },
        spec: { containers: [{ name: "c", image: "i" }] },
      },
    });
    const res = await f.http(
      "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/default/sandboxclaims/c1",
      { method: "DELETE", body: { propagationPolicy: "Foreground" } },
    );
    expect(metadataOf(res.body).finalizers).toEqual(["foregroundDeletion"]);
    await f.sim.settled();
    // The Sandbox is held by its own finalizer, so the claim must still be there.
    const held = (await f.custom.getNamespacedCustomObject({ ...CLAIMS, name: "c1" })) as Obj;
    expect(metadataOf(held).deletionTimestamp).toBeDefined();
    const sbNow = (await f.custom.getNamespacedCustomObject({ ...SANDBOXES, name: "c1" })) as Obj;
    expect(metadataOf(sbNow).deletionTimestamp).toBeDefined();
    expect((await f.core.listNamespacedPod({ namespace: "default" })).items).toEqual([]);
    await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "c1", body: { metadata: { finalizers: null } } },
      MERGE,
    );
    await f.sim.settled();
    expect(
      (await failure(f.custom.getNamespacedCustomObject({ ...CLAIMS, name: "c1" }))).code,
    ).toBe(404);
  });

  it("§4.9 an Orphan delete removes the owner and strips its ownerReference from dependents", async () => {
    await using f = await simFixture();
    const sb = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("sb1"),
    })) as Obj;
    await f.core.createNamespacedConfigMap({
      namespace: "default",
      body: {
        metadata: {
          name: "dep",
          ownerReferences: ownedBy(sb, "Sandbox", "agents.x-k8s.io/v1beta1") as never,
        },
      },
    });
    const res = await f.http(`${SANDBOX_PATH}/sb1?propagationPolicy=Orphan`, { method: "DELETE" });
    expect(metadataOf(res.body).finalizers).toEqual(["orphan"]);
    await f.sim.settled();
    expect((await f.http(`${SANDBOX_PATH}/sb1`)).status).toBe(404);
    const dep = await f.core.readNamespacedConfigMap({ namespace: "default", name: "dep" });
    expect(dep.metadata?.ownerReferences).toBeUndefined();
  });

  it("§4.9 the deprecated orphanDependents (query True or body true) orphans like Orphan; with a propagationPolicy it is 422", async () => {
    await using f = await simFixture();
    for (const name of ["sb1", "sb2", "sb3"])
      await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox(name) });
    const inQuery = await f.http(`${SANDBOX_PATH}/sb1?orphanDependents=True`, {
      method: "DELETE",
    });
    expect(metadataOf(inQuery.body).finalizers).toEqual(["orphan"]);
    const inBody = await f.http(`${SANDBOX_PATH}/sb2`, {
      method: "DELETE",
      body: { orphanDependents: true },
    });
    expect(metadataOf(inBody.body).finalizers).toEqual(["orphan"]);
    const both = await f.http(
      `${SANDBOX_PATH}/sb3?orphanDependents=false&propagationPolicy=Orphan`,
      {
        method: "DELETE",
      },
    );
    const message =
      'Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set';
    expect([both.status, both.body.message, both.body.details]).toEqual([
      422,
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: ${message}`,
      {
        group: "meta.k8s.io",
        kind: "DeleteOptions",
        causes: [{ reason: "FieldValueInvalid", message, field: "propagationPolicy" }],
      },
    ]);
    const dropped = await f.http(`${SANDBOX_PATH}/sb3?orphanDependents=false`, {
      method: "DELETE",
    });
    expect([dropped.status, dropped.body.status]).toEqual([200, "Success"]);
  });

  it("§4.9 DELETE on a collection deletes what the selectors match and answers the list of what each deletion returned", async () => {
    await using f = await simFixture();
    for (const [name, x] of [
      ["a", "1"],
      ["b", "1"],
      ["c", "2"],
    ] as const)
      await f.core.createNamespacedConfigMap({
        namespace: "default",
        body: { metadata: { name, labels: { x } } },
      });
    const res = await f.http("/api/v1/namespaces/default/configmaps?labelSelector=x%3D1", {
      method: "DELETE",
    });
    expect(res.status).toBe(200);
    expect([res.body.kind, res.body.apiVersion]).toEqual(["ConfigMapList", "v1"]);
    const items = res.body.items as Obj[];
    // Core list items carry no kind, as in a list (§2).
    expect(items.map((i) => [metadataOf(i).name, i.kind])).toEqual([
      ["a", undefined],
      ["b", undefined],
    ]);
    const left = await f.core.listNamespacedConfigMap({ namespace: "default" });
    expect(left.items.map((i) => i.metadata?.name)).toEqual(["c"]);

    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: { ...sandbox("held"), metadata: { name: "held", finalizers: ["example.com/hold"] } },
    });
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("free") });
    const crs = await f.http(SANDBOX_PATH, { method: "DELETE" });
    const marked = (crs.body.items as Obj[]).map((i) => [
      metadataOf(i).name,
      i.kind,
      metadataOf(i).deletionTimestamp !== undefined,
    ]);
    expect([crs.body.kind, marked]).toEqual([
      "SandboxList",
      [
        ["free", "Sandbox", false],
        ["held", "Sandbox", true],
      ],
    ]);
    const discovery = await f.http("/api/v1");
    const configMaps = (discovery.body.resources as { name: string; verbs: string[] }[]).find(
      (r) => r.name === "configmaps",
    );
    expect(configMaps?.verbs).toContain("deletecollection");
  });

  it("§4.9 pods: deleting returns the pod itself; an unscheduled pod goes at once, a running one terminates gracefully", async () => {
    await using f = await simFixture();
    await f.core.createNamespacedPod({
      namespace: "default",
      body: { metadata: { name: "p1" }, spec: { containers: [{ name: "c", image: "i" }] } },
    });
    const gone = await f.core.deleteNamespacedPod({ namespace: "default", name: "p1" });
    expect(gone.metadata?.name).toBe("p1");
    expect(
      (await failure(f.core.readNamespacedPod({ namespace: "default", name: "p1" }))).code,
    ).toBe(404);
    await f.core.createNamespacedPod({
      namespace: "default",
      body: {
        metadata: { name: "p2" },
        spec: {
          nodeName: "node-1",
          terminationGracePeriodSeconds: 5,
          containers: [{ name: "c", image: "i" }],
        },
      },
    });
    const terminating = await f.core.deleteNamespacedPod({ namespace: "default", name: "p2" });
    expect(terminating.metadata?.deletionGracePeriodSeconds).toBe(5);
    expect(terminating.metadata?.generation).toBe(2);
    expect(
      (await f.core.readNamespacedPod({ namespace: "default", name: "p2" })).metadata
        ?.deletionTimestamp,
    ).toBeDefined();
    // A status write during the grace period does not end it: only the kubelet removes the pod.
    await f.core.patchNamespacedPodStatus(
      { namespace: "default", name: "p2", body: { status: { phase: "Running" } } },
      MERGE,
    );
    expect(
      (await f.core.readNamespacedPod({ namespace: "default", name: "p2" })).status?.phase,
    ).toBe("Running");
  });

  it("§4.9 deleting a namespace deletes the objects in it", async () => {
    await using f = await simFixture();
    await f.core.createNamespace({ body: { metadata: { name: "scratch" } } });
    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      namespace: "scratch",
      body: sandbox("sb1"),
    });
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("kept") });
    await f.core.deleteNamespace({ name: "scratch" });
    await f.sim.settled();
    const all = (await f.custom.listClusterCustomObject({
      group: "agents.x-k8s.io",
      version: "v1beta1",
      plural: "sandboxes",
    })) as { items: Obj[] };
    expect(all.items.map((item) => metadataOf(item).name)).toEqual(["kept"]);
  });
});
