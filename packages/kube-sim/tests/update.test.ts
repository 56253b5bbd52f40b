/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- client-node's model classes are plain data, and request bodies are object literals as in its own examples. */
import { describe, expect, it } from "vitest";
import {
  SANDBOXES,
  SANDBOX_PATH,
  failure,
  metadataOf,
  sandbox,
  simFixture,
  type Obj,
  createdSandbox,
} from "./harness.ts";

describe("update (§2, §4.4, §9.2)", () => {
  it("§9.2 a PUT with a stale resourceVersion is 409 Conflict with the exact text", async () => {
    await using f = await simFixture();
    const sb = await createdSandbox(f);
    await f.custom.replaceNamespacedCustomObject({
      ...SANDBOXES,
      name: "sb1",
      body: { ...sb, metadata: { ...metadataOf(sb), labels: { a: "1" } } },
    });
    const stale = await failure(
      f.custom.replaceNamespacedCustomObject({
        ...SANDBOXES,
        name: "sb1",
        body: { ...sb, metadata: { ...metadataOf(sb), labels: { a: "2" } } },
      }),
    );
    expect(stale.code).toBe(409);
    expect(stale.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'Operation cannot be fulfilled on sandboxes.agents.x-k8s.io "sb1": the object has been modified; please apply your changes to the latest version and try again',
      reason: "Conflict",
      details: { name: "sb1", group: "agents.x-k8s.io", kind: "sandboxes" },
      code: 409,
    });
  });

  it("§9.2 a PUT without resourceVersion on a CR is 422 with the exact body; on a core kind it is unconditional", async () => {
    await using f = await simFixture();
    await createdSandbox(f);
    const res = await f.http(`${SANDBOX_PATH}/sb1`, { method: "PUT", body: sandbox("sb1") });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'sandboxes.agents.x-k8s.io "sb1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
      reason: "Invalid",
      details: {
        name: "sb1",
        group: "agents.x-k8s.io",
        kind: "sandboxes",
        causes: [
          {
            reason: "FieldValueInvalid",
            message: "Invalid value: 0x0: must be specified for an update",
            field: "metadata.resourceVersion",
          },
        ],
      },
      code: 422,
    });
    await f.core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "cm" }, data: { a: "1" } },
    });
    const replaced = await f.core.replaceNamespacedConfigMap({
      namespace: "default",
      name: "cm",
      body: { metadata: { name: "cm" }, data: { a: "2" } },
    });
    expect(replaced.data).toEqual({ a: "2" });
  });

  it("§2 a PUT with another uid is 409; client changes to creationTimestamp and generation are ignored", async () => {
    await using f = await simFixture();
    const sb = await createdSandbox(f);
    const meta = metadataOf(sb);
    const wrongUid = await failure(
      f.custom.replaceNamespacedCustomObject({
        ...SANDBOXES,
        name: "sb1",
        body: { ...sb, metadata: { ...meta, uid: "00000000-0000-4000-8000-000000000000" } },
      }),
    );
    expect(wrongUid.code).toBe(409);
    expect(wrongUid.status.reason).toBe("Conflict");
    const updated = (await f.custom.replaceNamespacedCustomObject({
      ...SANDBOXES,
      name: "sb1",
      body: {
        ...sb,
        metadata: {
          ...meta,
          creationTimestamp: "2000-01-01T00:00:00Z",
          generation: 42,
          labels: { x: "y" },
        },
      },
    })) as Obj;
    expect(metadataOf(updated)).toMatchObject({
      creationTimestamp: meta.creationTimestamp,
      generation: 1,
      uid: meta.uid,
      labels: { x: "y" },
    });
  });

  it("§4.4 concurrent optimistic updates: exactly one of two racing PUTs with the same resourceVersion wins", async () => {
    await using f = await simFixture();
    const sb = await createdSandbox(f);
    const put = (value: string) =>
      f.http(`${SANDBOX_PATH}/sb1`, {
        method: "PUT",
        body: { ...sb, metadata: { ...metadataOf(sb), labels: { who: value } } },
      });
    const results = await Promise.all(["a", "b", "c", "d"].map(put));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
  });
});
