import type * as k8s from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { SANDBOX_PATH, sandbox, simFixture } from "./harness.ts";

const UNKNOWN = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "the server could not find the requested resource",
  reason: "NotFound",
  details: {},
  code: 404,
};

describe("transport and discovery (§1)", () => {
  it("§1 discovery lists groups, versions and resources with their /status entries", async () => {
    await using f = await simFixture();
    const groups = await f.http("/apis");
    const names = (
      groups.body.groups as { name: string; preferredVersion: { version: string } }[]
    ).map((g) => [g.name, g.preferredVersion.version]);
    expect(names).toEqual(
      expect.arrayContaining([
        ["agents.x-k8s.io", "v1beta1"],
        ["extensions.agents.x-k8s.io", "v1beta1"],
        ["admissionregistration.k8s.io", "v1"],
      ]),
    );
    const core = await f.http("/api/v1");
    const resources = core.body.resources as { name: string; namespaced: boolean; kind: string }[];
    expect(resources.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        "pods",
        "pods/status",
        "services",
        "persistentvolumeclaims",
        "configmaps",
        "secrets",
        "events",
        "namespaces",
      ]),
    );
    const ext = await f.http("/apis/extensions.agents.x-k8s.io/v1beta1");
    const extNames = (ext.body.resources as { name: string }[]).map((r) => r.name);
    expect(extNames).toContain("sandboxclaims/status");
    expect(extNames).toContain("sandboxtemplates");
    expect(extNames).not.toContain("sandboxtemplates/status");
    expect(extNames).toContain("sandboxwarmpools/scale");
    const sandboxes = (await f.http("/apis/agents.x-k8s.io/v1beta1")).body.resources as {
      name: string;
    }[];
    expect(sandboxes.map((r) => r.name)).toEqual(["sandboxes", "sandboxes/status"]);
    expect((await f.http("/api")).body.versions).toEqual(["v1"]);
  });

  it("§1 every answer, errors included, is JSON with a Content-Type", async () => {
    await using f = await simFixture();
    for (const path of ["/api/v1", "/apis/nope.example.com/v1/things", `${SANDBOX_PATH}/missing`]) {
      const res = await f.http(path);
      expect(res.headers.get("content-type")).toBe("application/json");
    }
  });

  it("§1 an unknown group, version or resource answers the generic 404 Status", async () => {
    await using f = await simFixture();
    for (const path of [
      "/apis/nope.example.com/v1/namespaces/default/things",
      "/apis/agents.x-k8s.io/v9/namespaces/default/sandboxes",
      "/api/v1/namespaces/default/widgets",
      "/apis/agents.x-k8s.io/v9",
    ]) {
      const res = await f.http(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(UNKNOWN);
    }
  });

  it("§1 an undeclared subresource on a CR (/scale on a v1beta1 Sandbox) reads as a missing object", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({
      group: "agents.x-k8s.io",
      version: "v1beta1",
      namespace: "default",
      plural: "sandboxes",
      body: sandbox("sb1"),
    });
    const res = await f.http(`${SANDBOX_PATH}/sb1/scale`);
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('sandboxes.agents.x-k8s.io "sb1" not found');
    const template = await f.http(
      "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/default/sandboxtemplates/t1/status",
    );
    expect(template.status).toBe(404);
  });

  it("§1 KubernetesObjectApi resolves plural and scope from discovery for generic create and read", async () => {
    await using f = await simFixture();
    const created = await f.objects.create<k8s.KubernetesObject>(sandbox("generic"));
    expect(created.metadata?.name).toBe("generic");
    const read = await f.objects.read({
      apiVersion: "agents.x-k8s.io/v1beta1",
      kind: "Sandbox",
      metadata: { name: "generic", namespace: "default" },
    });
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
  });
});
