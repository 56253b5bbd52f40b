/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- client-node's model classes are plain data, and request bodies are object literals as in its own examples. */
import * as k8s from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import {
  JSON_PATCH,
  MERGE,
  SANDBOXES,
  SANDBOX_PATH,
  failure,
  metadataOf,
  simFixture,
  type Obj,
  createdSandbox,
} from "./harness.ts";

describe("patch (§4.5, §9.2–§9.4)", () => {
  it("§9.2 a merge patch with a stale metadata.resourceVersion is 409; without one it is 200", async () => {
    await using f = await simFixture();
    const sb = await createdSandbox(f);
    const rv = String(metadataOf(sb).resourceVersion);
    await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "sb1", body: { metadata: { labels: { a: "1" } } } },
      MERGE,
    );
    const stale = await failure(
      f.custom.patchNamespacedCustomObject(
        {
          ...SANDBOXES,
          name: "sb1",
          body: { metadata: { resourceVersion: rv, labels: { a: "2" } } },
        },
        MERGE,
      ),
    );
    expect(stale.code).toBe(409);
    expect(stale.status.reason).toBe("Conflict");
    const ok = (await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "sb1", body: { metadata: { labels: { a: "3", b: null } } } },
      MERGE,
    )) as Obj;
    expect(metadataOf(ok).labels).toEqual({ a: "3" });
  });

  it("§4.5 a merge patch replaces arrays whole and deletes keys set to null", async () => {
    await using f = await simFixture();
    await f.core.createNamespacedConfigMap({
      namespace: "default",
      body: {
        metadata: { name: "cm", finalizers: ["a/x", "a/y"], annotations: { keep: "1", drop: "2" } },
      },
    });
    const patched = await f.core.patchNamespacedConfigMap(
      {
        namespace: "default",
        name: "cm",
        body: { metadata: { finalizers: ["a/z"], annotations: { drop: null } } },
      },
      MERGE,
    );
    expect(patched.metadata?.finalizers).toEqual(["a/z"]);
    expect(patched.metadata?.annotations).toEqual({ keep: "1" });
  });

  it("§9.3 a JSON patch whose test op fails is 422 with the generic body and changes nothing; with the fresh version it is 200", async () => {
    await using f = await simFixture();
    const sb = await createdSandbox(f);
    const stale = String(metadataOf(sb).resourceVersion);
    const labelled = (await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "sb1", body: { metadata: { labels: { a: "1" } } } },
      MERGE,
    )) as Obj;
    const fresh = String(metadataOf(labelled).resourceVersion);
    const ops = (rv: string) => [
      { op: "test", path: "/metadata/resourceVersion", value: rv },
      { op: "replace", path: "/metadata/labels/a", value: "2" },
    ];
    const failed = await failure(
      f.custom.patchNamespacedCustomObject(
        { ...SANDBOXES, name: "sb1", body: ops(stale) },
        JSON_PATCH,
      ),
    );
    expect(failed.code).toBe(422);
    expect(JSON.stringify(failed.status)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server rejected our request due to an error in our request","reason":"Invalid","details":{},"code":422}',
    );
    const unchanged = (await f.custom.getNamespacedCustomObject({
      ...SANDBOXES,
      name: "sb1",
    })) as Obj;
    expect(metadataOf(unchanged).resourceVersion).toBe(fresh);
    expect(metadataOf(unchanged).labels).toEqual({ a: "1" });
    const ok = (await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "sb1", body: ops(fresh) },
      JSON_PATCH,
    )) as Obj;
    expect(metadataOf(ok).labels).toEqual({ a: "2" });
  });

  it("§4.5 JSON patch: add under a missing parent is 422, ~1 escapes a slash, a non-array body is 400", async () => {
    await using f = await simFixture();
    await createdSandbox(f);
    const missingParent = await f.http(`${SANDBOX_PATH}/sb1`, {
      method: "PATCH",
      contentType: "application/json-patch+json",
      body: [{ op: "add", path: "/metadata/annotations/x", value: "1" }],
    });
    expect(missingParent.status).toBe(422);
    expect(missingParent.body.message).toBe(
      "the server rejected our request due to an error in our request",
    );
    const escaped = await f.http(`${SANDBOX_PATH}/sb1`, {
      method: "PATCH",
      contentType: "application/json-patch+json",
      body: [
        { op: "add", path: "/metadata/annotations", value: {} },
        { op: "add", path: "/metadata/annotations/agents.x-k8s.io~1pod-name", value: "p" },
      ],
    });
    expect(escaped.status).toBe(200);
    expect(metadataOf(escaped.body).annotations).toEqual({ "agents.x-k8s.io/pod-name": "p" });
    const notArray = await f.http(`${SANDBOX_PATH}/sb1`, {
      method: "PATCH",
      contentType: "application/json-patch+json",
      body: { metadata: {} },
    });
    expect(notArray.status).toBe(400);
    expect(notArray.body.reason).toBe("BadRequest");
  });

  it("§3 a merge patch body that is an array is 422 on field patch; null or malformed JSON is 400 Invalid JSON Patch", async () => {
    await using f = await simFixture();
    await createdSandbox(f);
    const array = await f.http(`${SANDBOX_PATH}/sb1`, {
      method: "PATCH",
      contentType: "application/merge-patch+json",
      body: [{ op: "add" }],
    });
    expect(array.status).toBe(422);
    expect(array.body.message).toMatch(
      /^"" is invalid: patch: Invalid value: .*couldn't get version\/kind; json parse error: json: cannot unmarshal array into Go value of type struct/,
    );
    expect(
      (array.body.details as { causes: { field: string; reason: string }[] }).causes[0],
    ).toMatchObject({ reason: "FieldValueInvalid", field: "patch" });
    for (const body of ["null", "{not json"]) {
      const res = await f.http(`${SANDBOX_PATH}/sb1`, {
        method: "PATCH",
        contentType: "application/merge-patch+json",
        body,
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("Invalid JSON Patch");
    }
  });

  it("§9.4 strategic merge patch to a Sandbox is 415 with the exact accepted-types text", async () => {
    await using f = await simFixture();
    await createdSandbox(f);
    const res = await f.http(`${SANDBOX_PATH}/sb1`, {
      method: "PATCH",
      contentType: "application/strategic-merge-patch+json",
      body: { metadata: { labels: { a: "1" } } },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
      reason: "UnsupportedMediaType",
      code: 415,
    });
    const status = await f.http(`${SANDBOX_PATH}/sb1/status`, {
      method: "PATCH",
      contentType: "application/strategic-merge-patch+json",
      body: {},
    });
    expect(status.status).toBe(415);
  });

  it("§9.4 KubernetesObjectApi.patch with no strategy (strategic merge) is 415 on a CR and works on a Pod's labels", async () => {
    await using f = await simFixture();
    await createdSandbox(f);
    const err = await f.objects
      .patch({
        apiVersion: "agents.x-k8s.io/v1beta1",
        kind: "Sandbox",
        metadata: { name: "sb1", namespace: "default", labels: { a: "1" } },
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(err).toBeInstanceOf(k8s.ApiException);
    expect((err as k8s.ApiException<string>).code).toBe(415);
    await f.core.createNamespacedPod({
      namespace: "default",
      body: { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "i" }] } },
    });
    const pod = await f.objects.patch({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", namespace: "default", labels: { a: "1" } },
    });
    expect(pod.metadata.labels).toEqual({ a: "1" });
  });

  it("§9.4 patchNamespacedCustomObject with an object body and no header options sends JSON Patch and gets 400", async () => {
    await using f = await simFixture();
    await createdSandbox(f);
    const res = await failure(
      f.custom.patchNamespacedCustomObject({
        ...SANDBOXES,
        name: "sb1",
        body: { metadata: { labels: { a: "1" } } },
      }),
    );
    expect(res.code).toBe(400);
    expect(res.status.reason).toBe("BadRequest");
  });

  it("§4.5 apply without fieldManager is 422 with the exact body; with one it creates (201) and then merges (200)", async () => {
    await using f = await simFixture();
    const yaml =
      "apiVersion: agents.x-k8s.io/v1beta1\nkind: Sandbox\nmetadata:\n  name: sb1\nspec:\n  podTemplate:\n    spec:\n      containers:\n      - name: main\n        image: busybox\n";
    const missing = await f.http(`${SANDBOX_PATH}/sb1`, {
      method: "PATCH",
      contentType: "application/apply-patch+yaml",
      body: yaml,
    });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      reason: "Invalid",
      details: {
        group: "meta.k8s.io",
        kind: "PatchOptions",
        causes: [
          {
            reason: "FieldValueRequired",
            message: "Required value: is required for apply patch",
            field: "fieldManager",
          },
        ],
      },
      code: 422,
    });
    const create = await f.http(`${SANDBOX_PATH}/sb1?fieldManager=berth`, {
      method: "PATCH",
      contentType: "application/apply-patch+yaml",
      body: yaml,
    });
    expect(create.status).toBe(201);
    const merged = await f.http(`${SANDBOX_PATH}/sb1?fieldManager=berth`, {
      method: "PATCH",
      contentType: "application/apply-patch+yaml",
      body: yaml.replace("  name: sb1\n", "  name: sb1\n  labels:\n    a: b\n"),
    });
    expect(merged.status).toBe(200);
    expect(metadataOf(merged.body).labels).toEqual({ a: "b" });
    expect(metadataOf(merged.body).uid).toBe(metadataOf(create.body).uid);
  });

  it("§4.5 force on a non-apply patch is 422 Forbidden; a patch of a missing object is 404", async () => {
    await using f = await simFixture();
    await createdSandbox(f);
    const forced = await f.http(`${SANDBOX_PATH}/sb1?force=true`, {
      method: "PATCH",
      contentType: "application/merge-patch+json",
      body: {},
    });
    expect(forced.status).toBe(422);
    expect(forced.body.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
    expect((forced.body.details as { causes: unknown[] }).causes).toEqual([
      {
        reason: "FieldValueForbidden",
        message: "Forbidden: may not be specified for non-apply patch",
        field: "force",
      },
    ]);
    const missing = await f.http(`${SANDBOX_PATH}/nope`, {
      method: "PATCH",
      contentType: "application/merge-patch+json",
      body: {},
    });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('sandboxes.agents.x-k8s.io "nope" not found');
  });
});

describe("JSON Patch compare-and-swap and limits (§4.5, TOOLCHAIN §6)", () => {
  it("§4.5 of several concurrent test-and-replace patches on the same value exactly one succeeds, the rest get 422", async () => {
    await using f = await simFixture();
    await f.core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "epoch" }, data: { epoch: "1" } },
    });
    const cas = (writer: number) =>
      f.http("/api/v1/namespaces/default/configmaps/epoch", {
        method: "PATCH",
        contentType: "application/json-patch+json",
        body: [
          { op: "test", path: "/data/epoch", value: "1" },
          { op: "replace", path: "/data/epoch", value: "2" },
          { op: "add", path: "/data/writer", value: String(writer) },
        ],
      });
    const results = await Promise.all([1, 2, 3, 4, 5].map(cas));
    expect(results.map((r) => r.status).sort()).toEqual([200, 422, 422, 422, 422]);
    const winner = results.find((r) => r.status === 200);
    const stored = await f.core.readNamespacedConfigMap({ namespace: "default", name: "epoch" });
    expect(stored.data).toEqual((winner?.body as { data: unknown }).data);
  });

  it("§4.5 a JSON patch with more than 10000 operations is 413", async () => {
    await using f = await simFixture();
    await f.core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "cm" } },
    });
    const ops = Array.from({ length: 10_001 }, () => ({
      op: "test",
      path: "/metadata/name",
      value: "cm",
    }));
    const res = await f.http("/api/v1/namespaces/default/configmaps/cm", {
      method: "PATCH",
      contentType: "application/json-patch+json",
      body: ops,
    });
    expect(res.status).toBe(413);
    expect(res.body.reason).toBe("RequestEntityTooLarge");
  });
});
