import { describe, expect, it } from "vitest";
import { admitCustomResource } from "./admit.ts";
import { UnknownVersionError } from "./compile.ts";
import { convertCustomResource } from "./convert.ts";
import { ConversionError } from "./conversionSupport.ts";
import { agentSandboxType, betaSandbox, extension } from "./testTypes.ts";

const sandbox = agentSandboxType("Sandbox");
const claim = agentSandboxType("SandboxClaim");
const template = agentSandboxType("SandboxTemplate");
const pool = agentSandboxType("SandboxWarmPool");

const SANDBOX_STATE = "api.agents.x-k8s.io/v1alpha1-sandbox-state";
const POD = { spec: { containers: [{ name: "main", image: "busybox" }] } };

function alphaSandbox(spec: Record<string, unknown>, status?: Record<string, unknown>) {
  return {
    apiVersion: "agents.x-k8s.io/v1alpha1",
    kind: "Sandbox",
    metadata: { name: "sb1", namespace: "default", labels: { a: "b" } },
    spec: { podTemplate: POD, ...spec },
    ...(status === undefined ? {} : { status }),
  };
}

describe("conversion: identity", () => {
  it("§5 the same version is a deep copy", () => {
    const body = betaSandbox();
    const copy = convertCustomResource(sandbox, body, "v1beta1");
    expect(copy).toEqual(body);
    expect(copy).not.toBe(body);
  });

  it("unknown versions and foreign apiVersions are typed errors", () => {
    expect(() => convertCustomResource(sandbox, betaSandbox(), "v2")).toThrow(UnknownVersionError);
    const foreign = { ...betaSandbox(), apiVersion: "other.io/v1beta1" };
    expect(() => convertCustomResource(sandbox, foreign, "v1alpha1")).toThrow(ConversionError);
  });
});

describe("§5/§8.3 Sandbox: replicas 0|1 ↔ operatingMode", () => {
  it("§8.3 v1alpha1 replicas 0 is Suspended, 1 or none is Running; apiVersion is rewritten", () => {
    const modes = [0, 1, undefined].map((replicas) => {
      const alpha = alphaSandbox(replicas === undefined ? {} : { replicas });
      const beta = convertCustomResource(sandbox, alpha, "v1beta1");
      expect(beta.apiVersion).toBe("agents.x-k8s.io/v1beta1");
      expect(beta.spec).not.toHaveProperty("replicas");
      return (beta.spec as Record<string, unknown>).operatingMode;
    });
    expect(modes).toEqual(["Suspended", "Running", "Running"]);
  });

  it("§5 the hub keeps the v1alpha1 object in the sandbox-state annotation, and passes v1beta1 admission", () => {
    const alpha = alphaSandbox({ replicas: 0 }, { replicas: 0, podIPs: ["10.0.0.1"] });
    const beta = convertCustomResource(sandbox, alpha, "v1beta1");
    const annotations = (beta.metadata as { annotations: Record<string, string> }).annotations;
    expect(JSON.parse(annotations[SANDBOX_STATE] ?? "")).toEqual(alpha);
    expect(beta.status).toEqual({ podIPs: ["10.0.0.1"] });
    expect(admitCustomResource(sandbox, "v1beta1", beta, undefined).causes).toEqual([]);
  });

  it("§8.3 a plain v1beta1 Sandbox reads as v1alpha1 with replicas from its mode; nodeName is dropped", () => {
    const beta = betaSandbox({ operatingMode: "Suspended" });
    beta.status = { nodeName: "node-1", podIPs: [] };
    const alpha = convertCustomResource(sandbox, beta, "v1alpha1");
    expect(alpha.apiVersion).toBe("agents.x-k8s.io/v1alpha1");
    expect(alpha.spec).toMatchObject({ replicas: 0 });
    expect(alpha.spec).not.toHaveProperty("operatingMode");
    expect(alpha.status).toEqual({ podIPs: [], replicas: 0 });
    const running = convertCustomResource(sandbox, betaSandbox(), "v1alpha1");
    expect(running.spec).toMatchObject({ replicas: 1 });
  });

  it("§5 v1alpha1 → v1beta1 → v1alpha1 is lossless, and the state annotation does not leak", () => {
    for (const alpha of [
      alphaSandbox({ replicas: 1, service: true }, { replicas: 1, serviceFQDN: "sb1.default.svc" }),
      alphaSandbox({}),
      alphaSandbox({ replicas: 0 }),
    ]) {
      const back = convertCustomResource(
        sandbox,
        convertCustomResource(sandbox, alpha, "v1beta1"),
        "v1alpha1",
      );
      expect(back).toEqual(alpha);
    }
  });

  it("§8.3 a mode change made in v1beta1 wins over the recorded v1alpha1 replicas", () => {
    const beta = convertCustomResource(sandbox, alphaSandbox({ replicas: 1 }), "v1beta1");
    (beta.spec as Record<string, unknown>).operatingMode = "Suspended";
    expect(convertCustomResource(sandbox, beta, "v1alpha1").spec).toMatchObject({ replicas: 0 });
  });
});

describe("§5 SandboxClaim: sandboxTemplateRef + warmpool ↔ warmPoolRef", () => {
  const alphaClaim = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({
    ...extension("SandboxClaim", "v1alpha1", spec),
    ...(status === undefined ? {} : { status }),
  });

  it("§5 no specific pool maps to shadow-pool-<template>; a named pool maps to itself", () => {
    const shadow = convertCustomResource(
      claim,
      alphaClaim({ sandboxTemplateRef: { name: "py" }, warmpool: "default" }),
      "v1beta1",
    );
    expect(shadow.spec).toEqual({ warmPoolRef: { name: "shadow-pool-py" } });
    const none = convertCustomResource(
      claim,
      alphaClaim({ sandboxTemplateRef: { name: "py" }, warmpool: "none" }),
      "v1beta1",
    );
    expect(none.spec).toEqual({ warmPoolRef: { name: "shadow-pool-py" } });
    const named = convertCustomResource(
      claim,
      alphaClaim({ sandboxTemplateRef: { name: "py" }, warmpool: "fast" }),
      "v1beta1",
    );
    expect(named.spec).toEqual({ warmPoolRef: { name: "fast" } });
  });

  it("§8.5 a claim that adopted a warm sandbox <pool>-xxxxx maps to that pool", () => {
    const warm = alphaClaim(
      { sandboxTemplateRef: { name: "py" } },
      { sandbox: { name: "fast-b7k2x" } },
    );
    expect(convertCustomResource(claim, warm, "v1beta1").spec).toEqual({
      warmPoolRef: { name: "fast" },
    });
  });

  it("§5 a plain v1beta1 claim reads back: shadow-pool-<t> is template t with policy default", () => {
    const shadow = extension("SandboxClaim", "v1beta1", {
      warmPoolRef: { name: "shadow-pool-py" },
    });
    expect(convertCustomResource(claim, shadow, "v1alpha1").spec).toEqual({
      sandboxTemplateRef: { name: "py" },
      warmpool: "default",
    });
    const named = extension("SandboxClaim", "v1beta1", {
      warmPoolRef: { name: "fast" },
      env: [{ name: "A", value: "1" }],
    });
    expect(convertCustomResource(claim, named, "v1alpha1").spec).toEqual({
      sandboxTemplateRef: { name: "fast" },
      warmpool: "fast",
      env: [{ name: "A", value: "1" }],
    });
  });

  it("§5 v1alpha1 → v1beta1 → v1alpha1 is lossless", () => {
    const alpha = alphaClaim({
      sandboxTemplateRef: { name: "py" },
      warmpool: "default",
      lifecycle: { shutdownPolicy: "Delete" },
    });
    const beta = convertCustomResource(claim, alpha, "v1beta1");
    expect(convertCustomResource(claim, beta, "v1alpha1")).toEqual(alpha);
  });

  it("§5 a pool changed in v1beta1 shows as the v1alpha1 warmpool; the template is kept", () => {
    const beta = convertCustomResource(
      claim,
      alphaClaim({ sandboxTemplateRef: { name: "py" } }),
      "v1beta1",
    );
    (beta.spec as Record<string, unknown>).warmPoolRef = { name: "other" };
    expect(convertCustomResource(claim, beta, "v1alpha1").spec).toEqual({
      sandboxTemplateRef: { name: "py" },
      warmpool: "other",
    });
  });
});

describe("SandboxWarmPool and SandboxTemplate", () => {
  it("§5 pool: a v1beta1 pool without replicas reads as replicas 1; observedGeneration is dropped", () => {
    const beta = extension("SandboxWarmPool", "v1beta1", { sandboxTemplateRef: { name: "t" } });
    beta.status = { replicas: 2, readyReplicas: 1, observedGeneration: 3 };
    const alpha = convertCustomResource(pool, beta, "v1alpha1");
    expect(alpha.spec).toEqual({ sandboxTemplateRef: { name: "t" }, replicas: 1 });
    expect(alpha.status).toEqual({ replicas: 2, readyReplicas: 1 });
    const back = convertCustomResource(pool, alpha, "v1beta1");
    expect(back.spec).toEqual(alpha.spec);
    expect(convertCustomResource(pool, back, "v1alpha1")).toEqual(alpha);
  });

  it("§5 template: volumeClaimTemplatesPolicy rides in an annotation in v1alpha1", () => {
    const beta = extension("SandboxTemplate", "v1beta1", {
      podTemplate: POD,
      volumeClaimTemplatesPolicy: "Allowed",
    });
    const alpha = convertCustomResource(template, beta, "v1alpha1");
    expect(alpha.spec).toEqual({ podTemplate: POD });
    expect(alpha.metadata).toMatchObject({
      annotations: { "api.agents.x-k8s.io/v1beta1-volume-claim-templates-policy": "Allowed" },
    });
    const back = convertCustomResource(template, alpha, "v1beta1");
    expect(back.spec).toEqual(beta.spec);
    expect(convertCustomResource(template, back, "v1alpha1")).toEqual(alpha);
  });

  it("§5 template: a bad policy annotation is refused like the webhook refuses it", () => {
    const alpha = extension("SandboxTemplate", "v1alpha1", { podTemplate: POD });
    alpha.metadata = {
      name: "t",
      annotations: { "api.agents.x-k8s.io/v1beta1-volume-claim-templates-policy": "Sometimes" },
    };
    expect(() => convertCustomResource(template, alpha, "v1beta1")).toThrow(ConversionError);
  });
});
