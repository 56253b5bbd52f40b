/**
 * The core Secret kind (issue 35): what a box token kept in a Secret needs from the API server,
 * checked through client-node over HTTP against the upstream behaviour each test names.
 */
import type * as k8s from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import type { Fixture } from "./harness.ts";
import {
  JSON_PATCH,
  MERGE,
  SANDBOXES,
  failure,
  metadataOf,
  sandbox,
  simFixture,
} from "./harness.ts";

const SECRETS = "/api/v1/namespaces/default/secrets";
const b64 = (text: string): string => Buffer.from(text).toString("base64");

/** A Secret body; plain JSON, as the API sees it (client-node types bodies as classes). */
function secret(name: string, fields: Record<string, unknown> = {}): k8s.V1Secret {
  return JSON.parse(JSON.stringify({ metadata: { name }, ...fields })) as k8s.V1Secret;
}

const readSecret = (f: Fixture, name: string): Promise<k8s.V1Secret> =>
  f.core.readNamespacedSecret({ name, namespace: "default" });

describe("the Secret kind (issue 35)", () => {
  it("§4.1 / issue 35 create defaults type to Opaque, merges stringData over data base64-encoded and never returns it; get and list agree", async () => {
    await using f = await simFixture();
    const created = await f.core.createNamespacedSecret({
      namespace: "default",
      body: secret("box-token", {
        data: { z: b64("zed"), token: b64("from data") },
        stringData: { token: "s3cret", extra: "plain text" },
      }),
    });
    expect(created.type).toBe("Opaque");
    // Go writes map keys sorted; stringData overwrote data's `token` (Convert_v1_Secret_To_core_Secret).
    expect(created.data).toEqual({ extra: b64("plain text"), token: b64("s3cret"), z: b64("zed") });
    expect(Object.keys(created.data ?? {})).toEqual(["extra", "token", "z"]);
    expect(created.stringData).toBeUndefined();
    const raw = await f.http(`${SECRETS}/box-token`);
    expect(raw.body.stringData).toBeUndefined();
    expect(raw.body).toMatchObject({ apiVersion: "v1", kind: "Secret", type: "Opaque" });
    const listed = await f.core.listNamespacedSecret({
      namespace: "default",
      fieldSelector: "type=Opaque",
    });
    expect(listed.items.map((s) => [s.metadata?.name, s.data?.token])).toEqual([
      ["box-token", b64("s3cret")],
    ]);
    const other = await f.core.listNamespacedSecret({
      namespace: "default",
      fieldSelector: "type=kubernetes.io/tls",
    });
    expect(other.items).toEqual([]);
    // A stored value is re-encoded from its bytes: newlines and non-zero trailing bits go.
    await f.core.createNamespacedSecret({
      namespace: "default",
      body: secret("wrapped", { data: { k: "YWJj\nZGVm", t: "YR==" } }),
    });
    expect((await readSecret(f, "wrapped")).data).toEqual({ k: "YWJjZGVm", t: "YQ==" });
  });

  it("§3 / issue 35 a data value that is not base64 is 400 on create and update (the decoder's text) and 422 on field patch for a patch; nothing changes", async () => {
    await using f = await simFixture();
    const bad = await failure(
      f.core.createNamespacedSecret({
        namespace: "default",
        body: secret("s1", { data: { user: "admin" } }),
      }),
    );
    expect(bad.code).toBe(400);
    expect(bad.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4',
      reason: "BadRequest",
      code: 400,
    });
    const created = await f.core.createNamespacedSecret({
      namespace: "default",
      body: secret("s1", { data: { user: b64("admin") } }),
    });
    const put = await failure(
      f.core.replaceNamespacedSecret({
        name: "s1",
        namespace: "default",
        body: secret("s1", { data: { user: "<foo>" } }),
      }),
    );
    expect(put.code).toBe(400);
    expect(put.status.message).toBe(
      'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0',
    );
    for (const call of [
      f.core.patchNamespacedSecret(
        { name: "s1", namespace: "default", body: { data: { user: "wombat" } } },
        MERGE,
      ),
      f.core.patchNamespacedSecret(
        {
          name: "s1",
          namespace: "default",
          body: [{ op: "replace", path: "/data/user", value: "wombat" }],
        },
        JSON_PATCH,
      ),
    ]) {
      const patched = await failure(call);
      expect(patched.code).toBe(422);
      expect(patched.status.reason).toBe("Invalid");
      expect(String(patched.status.message)).toMatch(
        /^"" is invalid: patch: Invalid value: ".*": illegal base64 data at input byte 4$/,
      );
      expect(patched.status.details).toEqual({
        causes: [
          expect.objectContaining({ reason: "FieldValueInvalid", field: "patch" }) as unknown,
        ],
      });
    }
    const after = await readSecret(f, "s1");
    expect(after.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    expect(after.data).toEqual({ user: b64("admin") });
  });

  it("§4.4 / §4.5 / issue 35 update, merge patch (stringData too) and JSON patch change data; type is immutable; delete answers the Success Status", async () => {
    await using f = await simFixture();
    await f.core.createNamespacedSecret({
      namespace: "default",
      body: secret("s1", { type: "example.com/token", data: { a: b64("1") } }),
    });
    const merged = await f.core.patchNamespacedSecret(
      { name: "s1", namespace: "default", body: { stringData: { b: "2" } } },
      MERGE,
    );
    expect(merged.data).toEqual({ a: b64("1"), b: b64("2") });
    expect(merged.stringData).toBeUndefined();
    const jsonPatched = await f.core.patchNamespacedSecret(
      {
        name: "s1",
        namespace: "default",
        body: [
          { op: "test", path: "/data/a", value: b64("1") },
          { op: "replace", path: "/data/a", value: b64("one") },
          { op: "remove", path: "/data/b" },
        ],
      },
      JSON_PATCH,
    );
    expect(jsonPatched.data).toEqual({ a: b64("one") });
    const replaced = await f.core.replaceNamespacedSecret({
      name: "s1",
      namespace: "default",
      body: secret("s1", { type: "example.com/token", stringData: { c: "3" } }),
    });
    expect(replaced.data).toEqual({ c: b64("3") });
    // ValidateSecretUpdate: ValidateImmutableField on type; a body without type defaults to Opaque.
    const retyped = await failure(
      f.core.replaceNamespacedSecret({
        name: "s1",
        namespace: "default",
        body: secret("s1", { data: { c: b64("3") } }),
      }),
    );
    expect(retyped.code).toBe(422);
    expect(retyped.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'Secret "s1" is invalid: type: Invalid value: "Opaque": field is immutable',
      reason: "Invalid",
      details: {
        name: "s1",
        kind: "Secret",
        causes: [
          {
            reason: "FieldValueInvalid",
            message: 'Invalid value: "Opaque": field is immutable',
            field: "type",
          },
        ],
      },
      code: 422,
    });
    const deleted = await f.http(`${SECRETS}/s1`, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({
      kind: "Status",
      status: "Success",
      details: { name: "s1", kind: "secrets" },
    });
    expect((await failure(readSecret(f, "s1"))).status.message).toBe('secrets "s1" not found');
  });

  it("§4.4 / issue 35 immutable: true forbids changing data (stringData included) or unsetting immutable with 422; metadata still changes", async () => {
    await using f = await simFixture();
    await f.core.createNamespacedSecret({
      namespace: "default",
      body: secret("frozen", { immutable: true, data: { token: b64("v1") } }),
    });
    const forbidden = (field: string) => ({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `Secret "frozen" is invalid: ${field}: Forbidden: field is immutable when \`immutable\` is set`,
      reason: "Invalid",
      details: {
        name: "frozen",
        kind: "Secret",
        causes: [
          {
            reason: "FieldValueForbidden",
            message: "Forbidden: field is immutable when `immutable` is set",
            field,
          },
        ],
      },
      code: 422,
    });
    const data = await failure(
      f.core.patchNamespacedSecret(
        { name: "frozen", namespace: "default", body: { data: { token: b64("v2") } } },
        MERGE,
      ),
    );
    expect(data.code).toBe(422);
    expect(data.status).toEqual(forbidden("data"));
    const viaStringData = await failure(
      f.core.patchNamespacedSecret(
        { name: "frozen", namespace: "default", body: { stringData: { other: "x" } } },
        MERGE,
      ),
    );
    expect(viaStringData.status).toEqual(forbidden("data"));
    const thaw = await failure(
      f.core.patchNamespacedSecret(
        { name: "frozen", namespace: "default", body: { immutable: false } },
        MERGE,
      ),
    );
    expect(thaw.status).toEqual(forbidden("immutable"));
    // The same data again (as stringData) is no change at all.
    const same = await f.core.patchNamespacedSecret(
      {
        name: "frozen",
        namespace: "default",
        body: { metadata: { labels: { rotated: "no" } }, stringData: { token: "v1" } },
      },
      MERGE,
    );
    expect(same.metadata?.labels).toEqual({ rotated: "no" });
    expect(same.data).toEqual({ token: b64("v1") });
  });

  it("§4.1 / issue 35 data keys must be config keys: 422 with IsConfigMapKey's messages", async () => {
    await using f = await simFixture();
    const bad = await failure(
      f.core.createNamespacedSecret({
        namespace: "default",
        body: secret("keys", { stringData: { "bad key": "x", "..dots": "y" } }),
      }),
    );
    expect(bad.code).toBe(422);
    const message =
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
    expect(bad.status.message).toBe(
      `Secret "keys" is invalid: [data[..dots]: Invalid value: "..dots": must not start with '..', data[bad key]: Invalid value: "bad key": ${message}]`,
    );
    expect(bad.status.details).toMatchObject({ name: "keys", kind: "Secret" });
  });

  it("§9.8 / issue 35 a Secret owned by a Sandbox is garbage-collected when the Sandbox is deleted", async () => {
    await using f = await simFixture();
    const owner = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("box"),
    })) as Record<string, unknown>;
    const { name, uid } = metadataOf(owner) as { name: string; uid: string };
    await f.core.createNamespacedSecret({
      namespace: "default",
      body: secret("box-token", {
        metadata: {
          name: "box-token",
          ownerReferences: [
            {
              apiVersion: "agents.x-k8s.io/v1beta1",
              kind: "Sandbox",
              name,
              uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        stringData: { token: "t" },
      }),
    });
    await f.custom.deleteNamespacedCustomObject({ ...SANDBOXES, name: "box" });
    await f.sim.settled();
    const gone = await failure(readSecret(f, "box-token"));
    expect(gone.code).toBe(404);
    expect(gone.status.details).toEqual({ name: "box-token", kind: "secrets" });
  });
});
