/**
 * CiliumNetworkPolicy (`cilium.io/v2`, issue 42): served from a subset of Cilium's CRD through the
 * same CRD path as the agent-sandbox kinds, shaped as the egress policies of kubernetes.md §10.
 */
import { describe, expect, it } from "vitest";
import { MERGE, failure, metadataOf, simFixture, type Obj } from "./harness.ts";

const CNP = {
  group: "cilium.io",
  version: "v2",
  namespace: "default",
  plural: "ciliumnetworkpolicies",
} as const;

const CNP_PATH = "/apis/cilium.io/v2/namespaces/default/ciliumnetworkpolicies";

/** The per-sandbox egress policy of §10: kube-dns on port 53 plus the allowed hosts. */
function egressPolicy(name: string, spec: Obj = {}): Obj {
  return {
    apiVersion: "cilium.io/v2",
    kind: "CiliumNetworkPolicy",
    metadata: { name },
    spec: {
      endpointSelector: { matchLabels: { "sandbox.namzu.ai/sandbox": "sb1" } },
      egress: [
        {
          toEndpoints: [
            {
              matchLabels: {
                "k8s:io.kubernetes.pod.namespace": "kube-system",
                "k8s-app": "kube-dns",
              },
            },
          ],
          toPorts: [
            { ports: [{ port: "53", protocol: "ANY" }], rules: { dns: [{ matchPattern: "*" }] } },
          ],
        },
        { toFQDNs: [{ matchName: "example.com" }, { matchPattern: "*.example.com" }] },
      ],
      ...spec,
    },
  };
}

describe("CiliumNetworkPolicy (issue 42, kubernetes.md §10)", () => {
  it("§1 discovery lists ciliumnetworkpolicies in cilium.io/v2, namespaced, short name cnp", async () => {
    await using f = await simFixture();
    const list = await f.http("/apis/cilium.io/v2");
    expect(list.status).toBe(200);
    const resources = list.body.resources as Obj[];
    expect(resources.find((r) => r.name === "ciliumnetworkpolicies")).toMatchObject({
      kind: "CiliumNetworkPolicy",
      namespaced: true,
      shortNames: ["cnp", "ciliumnp"],
    });
  });

  it("§4 create, get, list, merge patch and delete through client-node, the body kept as sent", async () => {
    await using f = await simFixture();
    const created = (await f.custom.createNamespacedCustomObject({
      ...CNP,
      body: egressPolicy("namzu-sbx-1"),
    })) as Obj;
    expect(created.spec).toEqual(egressPolicy("namzu-sbx-1").spec);
    expect(metadataOf(created).generation).toBe(1);

    const got = (await f.custom.getNamespacedCustomObject({ ...CNP, name: "namzu-sbx-1" })) as Obj;
    expect(got.spec).toEqual(egressPolicy("namzu-sbx-1").spec);
    const listed = (await f.custom.listNamespacedCustomObject(CNP)) as { items: Obj[] };
    expect(listed.items.map((item) => metadataOf(item).name)).toEqual(["namzu-sbx-1"]);

    const hosts = { egress: [{ toFQDNs: [{ matchName: "berth.dev" }] }] };
    const patched = (await f.custom.patchNamespacedCustomObject(
      { ...CNP, name: "namzu-sbx-1", body: { spec: hosts } },
      MERGE,
    )) as Obj;
    expect((patched.spec as Obj).egress).toEqual(hosts.egress);
    expect(metadataOf(patched).generation).toBe(2);

    await f.custom.deleteNamespacedCustomObject({ ...CNP, name: "namzu-sbx-1" });
    const gone = await failure(f.custom.getNamespacedCustomObject({ ...CNP, name: "namzu-sbx-1" }));
    expect(gone.code).toBe(404);
  });

  it("§5 defaults: a port without protocol gets Cilium's default ANY", async () => {
    await using f = await simFixture();
    const created = await f.http(CNP_PATH, {
      method: "POST",
      body: egressPolicy("p", {
        egress: [{ toEndpoints: [{}], toPorts: [{ ports: [{ port: "443" }] }] }],
      }),
    });
    expect(created.status).toBe(201);
    const egress = (created.body.spec as { egress: { toPorts: { ports: Obj[] }[] }[] }).egress;
    expect(egress[0]?.toPorts[0]?.ports).toEqual([{ port: "443", protocol: "ANY" }]);
  });

  it("§5 an invalid policy is 422 naming the Kind and the field path of each cause", async () => {
    await using f = await simFixture();
    const res = await f.http(CNP_PATH, {
      method: "POST",
      body: egressPolicy("bad", {
        egress: [
          { toPorts: [{ ports: [{ port: "53", protocol: "DNS" }] }] },
          { toFQDNs: [{ matchName: "exa mple.com" }] },
        ],
      }),
    });
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe("Invalid");
    expect(res.body.details).toMatchObject({
      name: "bad",
      group: "cilium.io",
      kind: "CiliumNetworkPolicy",
    });
    const causes = (res.body.details as { causes: { field: string; message: string }[] }).causes;
    expect(causes.map((cause) => cause.field).sort()).toEqual([
      "spec.egress[0].toPorts[0].ports[0].protocol",
      "spec.egress[1].toFQDNs[0].matchName",
    ]);
    expect(res.body.message).toContain(
      'spec.egress[0].toPorts[0].ports[0].protocol: Unsupported value: "DNS": supported values:',
    );
    expect(res.body.message).toMatch(/^CiliumNetworkPolicy\.cilium\.io "bad" is invalid: /);
  });

  it("§5 unknown fields are pruned with a warning, or refused under fieldValidation=Strict", async () => {
    await using f = await simFixture();
    const body = egressPolicy("p", { toServices: [{ k8sService: { serviceName: "x" } }] });
    const strict = await f.http(`${CNP_PATH}?fieldValidation=Strict`, { method: "POST", body });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe('strict decoding error: unknown field "spec.toServices"');
    const pruned = await f.http(CNP_PATH, { method: "POST", body });
    expect(pruned.status).toBe(201);
    expect(pruned.headers.get("warning")).toBe('299 - "unknown field \\"spec.toServices\\""');
    expect((pruned.body.spec as Obj).toServices).toBeUndefined();
  });

  it("§10 the fields a fence policy must be able to see (specs, ingress, deny rules, nodeSelector) are kept", async () => {
    await using f = await simFixture();
    const extra = {
      nodeSelector: { matchLabels: { role: "x" } },
      ingress: [
        { fromEntities: ["world"], toPorts: [{ ports: [{ port: "8080", protocol: "TCP" }] }] },
      ],
      egressDeny: [{ toCIDR: ["10.0.0.0/8"] }],
      ingressDeny: [{ fromCIDRSet: [{ cidr: "0.0.0.0/0", except: ["10.0.0.0/8"] }] }],
    };
    const res = await f.http(CNP_PATH, {
      method: "POST",
      body: {
        ...egressPolicy("p", extra),
        specs: [{ endpointSelector: {}, egress: [{ toEntities: ["world"] }] }],
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("warning")).toBeNull();
    expect(res.body.spec).toMatchObject(extra);
    expect(res.body.specs).toEqual([{ endpointSelector: {}, egress: [{ toEntities: ["world"] }] }]);
  });
});
