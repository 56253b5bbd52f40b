import { describe, expect, it } from "vitest";
import { admitCustomResource, defaultCustomResource } from "./admit.ts";
import { agentSandboxType, betaSandbox, extension } from "./testTypes.ts";

const sandbox = agentSandboxType("Sandbox");
const claim = agentSandboxType("SandboxClaim");
const template = agentSandboxType("SandboxTemplate");
const pool = agentSandboxType("SandboxWarmPool");

function spec(object: Record<string, unknown>): unknown {
  return object.spec;
}

describe("§5 pruning", () => {
  it("§5 pruning drops spec.replicas from a v1beta1 Sandbox and reports it", () => {
    const body = betaSandbox({ replicas: 1 });
    const admission = admitCustomResource(sandbox, "v1beta1", body, undefined);
    expect(admission.unknownFields).toEqual(["spec.replicas"]);
    expect(spec(admission.object)).not.toHaveProperty("replicas");
    expect(admission.causes).toEqual([]);
  });

  it("§5 pruning reports nested and list-item paths the way Kubernetes prints them", () => {
    const body = betaSandbox({
      podTemplate: {
        spec: {
          containers: [{ name: "main", image: "busybox", ports: [{ containerPort: 80, x: 1 }] }],
        },
        extra: { deep: true },
      },
      volumeClaimTemplates: [{ metadata: { name: "data", colour: "red" }, spec: {} }],
    });
    const admission = admitCustomResource(sandbox, "v1beta1", body, undefined);
    expect(admission.unknownFields).toEqual([
      "spec.podTemplate.spec.containers[0].ports[0].x",
      "spec.podTemplate.extra",
      "spec.volumeClaimTemplates[0].metadata.colour",
    ]);
  });

  it("§5 pruning keeps apiVersion, kind and all of metadata at the root, and unknown top-level fields go", () => {
    const body = {
      ...betaSandbox(),
      metadata: { name: "sb1", labels: { a: "b" }, anything: 1 },
      top: 1,
    };
    const admission = admitCustomResource(sandbox, "v1beta1", body, undefined);
    expect(admission.unknownFields).toEqual(["top"]);
    expect(admission.object.metadata).toEqual({ name: "sb1", labels: { a: "b" }, anything: 1 });
    expect(admission.object.kind).toBe("Sandbox");
  });

  it("§5 map values under additionalProperties are kept (labels of the pod template)", () => {
    const body = betaSandbox({
      podTemplate: {
        metadata: { labels: { app: "x" }, annotations: { "a/b": "c" } },
        spec: { containers: [{ name: "main" }] },
      },
    });
    const admission = admitCustomResource(sandbox, "v1beta1", body, undefined);
    expect(admission.unknownFields).toEqual([]);
    expect(admission.object).toMatchObject({
      spec: { podTemplate: { metadata: { labels: { app: "x" }, annotations: { "a/b": "c" } } } },
    });
  });

  it("§5 the pod template's metadata is not an embedded resource here: only labels and annotations survive", () => {
    const body = betaSandbox({
      podTemplate: {
        metadata: { name: "p", namespace: "x", labels: { app: "a" } },
        spec: { containers: [{ name: "main" }] },
      },
    });
    const admission = admitCustomResource(sandbox, "v1beta1", body, undefined);
    expect(admission.unknownFields).toEqual([
      "spec.podTemplate.metadata.name",
      "spec.podTemplate.metadata.namespace",
    ]);
  });

  it("admission is pure: the request body is not changed", () => {
    const body = betaSandbox({ replicas: 1 });
    const before = structuredClone(body);
    admitCustomResource(sandbox, "v1beta1", body, undefined);
    expect(body).toEqual(before);
  });
});

describe("§5 defaults", () => {
  it("§5 Sandbox gets operatingMode Running and shutdownPolicy Retain", () => {
    const admission = admitCustomResource(sandbox, "v1beta1", betaSandbox(), undefined);
    expect(spec(admission.object)).toMatchObject({
      operatingMode: "Running",
      shutdownPolicy: "Retain",
    });
  });

  it("§5 defaults inside lists apply to present items (container port protocol TCP)", () => {
    const body = betaSandbox({
      podTemplate: { spec: { containers: [{ name: "main", ports: [{ containerPort: 80 }] }] } },
    });
    const admission = admitCustomResource(sandbox, "v1beta1", body, undefined);
    expect(admission.object).toMatchObject({
      spec: {
        podTemplate: {
          spec: { containers: [{ ports: [{ containerPort: 80, protocol: "TCP" }] }] },
        },
      },
    });
  });

  it("§5 SandboxClaim lifecycle.shutdownPolicy Retain only when lifecycle is present", () => {
    const without = extension("SandboxClaim", "v1beta1", { warmPoolRef: { name: "p" } });
    expect(spec(admitCustomResource(claim, "v1beta1", without, undefined).object)).toEqual({
      warmPoolRef: { name: "p" },
    });
    const withLifecycle = extension("SandboxClaim", "v1beta1", {
      warmPoolRef: { name: "p" },
      lifecycle: {},
    });
    expect(spec(admitCustomResource(claim, "v1beta1", withLifecycle, undefined).object)).toEqual({
      warmPoolRef: { name: "p" },
      lifecycle: { shutdownPolicy: "Retain" },
    });
  });

  it("§5 SandboxWarmPool replicas 1, and updateStrategy.type OnReplenish only when updateStrategy is present", () => {
    const bare = extension("SandboxWarmPool", "v1beta1", { sandboxTemplateRef: { name: "t" } });
    expect(spec(admitCustomResource(pool, "v1beta1", bare, undefined).object)).toEqual({
      sandboxTemplateRef: { name: "t" },
      replicas: 1,
    });
    const strategy = extension("SandboxWarmPool", "v1beta1", {
      sandboxTemplateRef: { name: "t" },
      replicas: 3,
      updateStrategy: {},
    });
    expect(spec(admitCustomResource(pool, "v1beta1", strategy, undefined).object)).toEqual({
      sandboxTemplateRef: { name: "t" },
      replicas: 3,
      updateStrategy: { type: "OnReplenish" },
    });
  });

  it("§5 SandboxTemplate networkPolicyManagement Managed, env and VCT policies Disallowed", () => {
    const body = extension("SandboxTemplate", "v1beta1", {
      podTemplate: { spec: { containers: [{ name: "main" }] } },
    });
    expect(spec(admitCustomResource(template, "v1beta1", body, undefined).object)).toMatchObject({
      networkPolicyManagement: "Managed",
      envVarsInjectionPolicy: "Disallowed",
      volumeClaimTemplatesPolicy: "Disallowed",
    });
  });

  it("§5 a null in a non-nullable field with a default takes the default; without one it is dropped", () => {
    const body = betaSandbox({ operatingMode: null, service: null });
    const admission = admitCustomResource(sandbox, "v1beta1", body, undefined);
    expect(spec(admission.object)).toMatchObject({ operatingMode: "Running" });
    expect(spec(admission.object)).not.toHaveProperty("service");
    expect(admission.unknownFields).toEqual([]);
    expect(admission.causes).toEqual([]);
  });

  it("§5 defaults are applied on read too (defaultCustomResource), without touching the input", () => {
    const stored = betaSandbox();
    const read = defaultCustomResource(sandbox, "v1beta1", stored);
    expect(spec(read)).toMatchObject({ operatingMode: "Running", shutdownPolicy: "Retain" });
    expect(spec(stored)).not.toHaveProperty("operatingMode");
  });

  it("§8.3 v1alpha1 defaults: Sandbox replicas 1, claim warmpool default", () => {
    const alphaSandbox = { ...betaSandbox(), apiVersion: "agents.x-k8s.io/v1alpha1" };
    expect(spec(defaultCustomResource(sandbox, "v1alpha1", alphaSandbox))).toMatchObject({
      replicas: 1,
    });
    const alphaClaim = extension("SandboxClaim", "v1alpha1", { sandboxTemplateRef: { name: "t" } });
    expect(spec(defaultCustomResource(claim, "v1alpha1", alphaClaim))).toEqual({
      sandboxTemplateRef: { name: "t" },
      warmpool: "default",
    });
  });

  it("§5 client-set values are kept over defaults", () => {
    const body = betaSandbox({ operatingMode: "Suspended", shutdownPolicy: "Delete" });
    expect(spec(admitCustomResource(sandbox, "v1beta1", body, undefined).object)).toMatchObject({
      operatingMode: "Suspended",
      shutdownPolicy: "Delete",
    });
  });
});
