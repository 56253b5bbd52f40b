import { describe, expect, it } from "vitest";
import { ALLOCATION_ANNOTATIONS } from "./berthKeys.ts";
import { CreateOnlyAnnotationPatchError, KubeClient } from "./kubeClient.ts";
import { KubeConfigError } from "./kubeConfig.ts";
import { KubeError } from "./kubeErrors.ts";
import { SANDBOX, type KubeObject } from "./kubeObjects.ts";
import { rejectionOf, simClient } from "./tests/simClient.ts";

const PATH = "/apis/agents.x-k8s.io/v1beta1/namespaces/default/sandboxes";

function sandbox(name: string): KubeObject {
  return {
    apiVersion: "agents.x-k8s.io/v1beta1",
    kind: "Sandbox",
    metadata: { name },
    spec: { podTemplate: { spec: { containers: [{ name: "main", image: "busybox" }] } } },
  };
}

describe("the client wrapper on the wire", () => {
  it("POSTs application/json with the body verbatim, and reads the answer back", async () => {
    await using f = await simClient();
    const created = await f.client.create(f.op(), SANDBOX, sandbox("sb1"));
    expect(created.metadata.name).toBe("sb1");
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    const [post] = f.sandboxRequests();
    expect(post).toMatchObject({
      method: "POST",
      path: PATH,
      contentType: "application/json",
      status: 201,
    });
    expect(post?.body).toBe(JSON.stringify(sandbox("sb1")));
  });

  it("sends a merge patch as application/merge-patch+json and a JSON Patch as application/json-patch+json, bodies verbatim", async () => {
    await using f = await simClient();
    await f.client.create(f.op(), SANDBOX, sandbox("sb1"));
    const target = { kind: SANDBOX, name: "sb1" };
    const merge = { metadata: { labels: { team: "a" } }, spec: { operatingMode: "Suspended" } };
    await f.client.patch(f.op(), target, { type: "merge", body: merge });
    const operations = [
      { op: "test", path: "/spec/operatingMode", value: "Suspended" },
      { op: "add", path: "/spec/operatingMode", value: "Running" },
    ] as const;
    const patched = await f.client.patch(f.op(), target, { type: "json", operations });
    expect((patched.spec as { operatingMode: string }).operatingMode).toBe("Running");
    const patches = f.sandboxRequests().filter((entry) => entry.method === "PATCH");
    expect(patches.map((entry) => [entry.contentType, entry.body, entry.status])).toEqual([
      ["application/merge-patch+json", JSON.stringify(merge), 200],
      ["application/json-patch+json", JSON.stringify(operations), 200],
    ]);
  });

  it("DELETEs without a body, or with DeleteOptions preconditions as application/json; a gone object is already_gone", async () => {
    await using f = await simClient();
    const created = await f.client.create(f.op(), SANDBOX, sandbox("sb1"));
    await f.client.create(f.op(), SANDBOX, sandbox("sb2"));
    const uid = created.metadata.uid ?? "";
    expect(await f.client.delete(f.op(), { kind: SANDBOX, name: "sb1" }, { uid })).toBe("deleted");
    expect(await f.client.delete(f.op(), { kind: SANDBOX, name: "sb2" })).toBe("deleted");
    expect(await f.client.delete(f.op(), { kind: SANDBOX, name: "sb2" })).toBe("already_gone");
    const deletes = f.sandboxRequests().filter((entry) => entry.method === "DELETE");
    expect(deletes.map((entry) => entry.status)).toEqual([200, 200, 404]);
    expect(JSON.parse(deletes[0]?.body ?? "")).toEqual({
      apiVersion: "v1",
      kind: "DeleteOptions",
      preconditions: { uid },
    });
    expect(deletes[0]?.contentType).toBe("application/json");
    expect(deletes[1]?.body).toBe("");
  });

  it("a DELETE whose uid precondition no longer holds is a conflict, and deletes nothing", async () => {
    await using f = await simClient();
    await f.client.create(f.op(), SANDBOX, sandbox("sb1"));
    const error = await rejectionOf(
      f.client.delete(f.op(), { kind: SANDBOX, name: "sb1" }, { uid: "someone-else" }),
    );
    expect(error).toMatchObject({ kind: "conflict", status: 409 });
    expect((await f.client.get(f.op(), { kind: SANDBOX, name: "sb1" })).metadata.name).toBe("sb1");
  });

  it("lists by label selector with one GET and never watches", async () => {
    await using f = await simClient();
    await f.client.create(f.op(), SANDBOX, {
      ...sandbox("a"),
      metadata: { name: "a", labels: { mine: "yes" } },
    });
    await f.client.create(f.op(), SANDBOX, sandbox("b"));
    const items = await f.client.list(f.op(), SANDBOX, { labelSelector: "mine=yes" });
    expect(items.map((item) => item.metadata.name)).toEqual(["a"]);
    const lists = f.sandboxRequests().filter((entry) => entry.method === "GET");
    expect(lists).toHaveLength(1);
    expect(lists[0]).toMatchObject({ verb: "list", query: { labelSelector: "mine=yes" } });
    expect(f.sim.requests.filter({ verb: "watch" })).toEqual([]);
  });

  it("refuses, unsent, any patch that touches a create-only allocation annotation", async () => {
    await using f = await simClient();
    await f.client.create(f.op(), SANDBOX, sandbox("sb1"));
    f.sim.requests.clear();
    const target = { kind: SANDBOX, name: "sb1" };
    const merge = rejectionOf(
      f.client.patch(f.op(), target, {
        type: "merge",
        body: { metadata: { annotations: { [ALLOCATION_ANNOTATIONS.id]: "x" } } },
      }),
    );
    const json = rejectionOf(
      f.client.patch(f.op(), target, {
        type: "json",
        operations: [
          {
            op: "add",
            path: "/metadata/annotations/sandbox.berth.dev~1allocation-scope",
            value: "y",
          },
        ],
      }),
    );
    expect(await merge).toBeInstanceOf(CreateOnlyAnnotationPatchError);
    expect(await json).toMatchObject({ key: ALLOCATION_ANNOTATIONS.scope });
    expect(f.sim.requests.all()).toEqual([]);
  });

  it("refuses a request timeout below 1 s, or not a whole number, before contacting anything", () => {
    for (const requestTimeoutMs of [0, -1, 999, 1.5, Number.NaN]) {
      expect(
        () => new KubeClient({ source: { kind: "yaml", text: "{}" }, requestTimeoutMs }),
      ).toThrow(KubeConfigError);
    }
  });

  it("messages never carry the bearer token or the server's echo of what was sent", async () => {
    await using f = await simClient();
    const secretValue = "hunter2-value-from-the-body";
    const invalid = await rejectionOf(
      f.client.create(f.op(), SANDBOX, {
        ...sandbox("sb1"),
        spec: { operatingMode: secretValue, podTemplate: { spec: { containers: [] } } },
      }),
    );
    expect(invalid).toBeInstanceOf(KubeError);
    const message = (invalid as KubeError).message;
    expect(message).toContain("spec.operatingMode");
    expect(message).not.toContain(secretValue);
    const gone = await rejectionOf(f.client.get(f.op(), { kind: SANDBOX, name: "missing" }));
    for (const error of [invalid, gone] as KubeError[]) {
      expect(error.message).not.toContain("5ecret");
      expect(String(error.stack)).not.toContain("5ecret");
    }
  });
});
