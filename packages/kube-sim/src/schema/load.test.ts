import { describe, expect, it } from "vitest";
import { compileCrd, UnknownVersionError } from "./compile.ts";
import { admitCustomResource } from "./admit.ts";
import { loadAgentSandboxTypes } from "./load.ts";
import { agentSandboxType } from "./testTypes.ts";

describe("loading the agent-sandbox CRDs (§5 versions table)", () => {
  it("§5 loads the four kinds, namespaced, with their plurals and short names", () => {
    const summary = loadAgentSandboxTypes().map((t) => [
      t.group,
      t.kind,
      t.listKind,
      t.plural,
      t.singular,
      t.shortNames,
      t.namespaced,
    ]);
    expect(summary).toEqual([
      ["agents.x-k8s.io", "Sandbox", "SandboxList", "sandboxes", "sandbox", ["sandbox"], true],
      [
        "extensions.agents.x-k8s.io",
        "SandboxClaim",
        "SandboxClaimList",
        "sandboxclaims",
        "sandboxclaim",
        ["sandboxclaim"],
        true,
      ],
      [
        "extensions.agents.x-k8s.io",
        "SandboxTemplate",
        "SandboxTemplateList",
        "sandboxtemplates",
        "sandboxtemplate",
        ["sandboxtemplate"],
        true,
      ],
      [
        "extensions.agents.x-k8s.io",
        "SandboxWarmPool",
        "SandboxWarmPoolList",
        "sandboxwarmpools",
        "sandboxwarmpool",
        ["swp"],
        true,
      ],
    ]);
  });

  it("§5 parses once: every call returns the same objects", () => {
    expect(loadAgentSandboxTypes()).toBe(loadAgentSandboxTypes());
  });

  it("§5 v1beta1 is served and stored everywhere; v1alpha1 is served, deprecated, not stored", () => {
    for (const type of loadAgentSandboxTypes()) {
      expect(type.storageVersion).toBe("v1beta1");
      const [beta, alpha] = type.versions;
      expect(beta).toMatchObject({
        name: "v1beta1",
        served: true,
        storage: true,
        deprecated: false,
      });
      expect(beta?.deprecationWarning).toBeUndefined();
      expect(alpha).toMatchObject({
        name: "v1alpha1",
        served: true,
        storage: false,
        deprecated: true,
      });
    }
  });

  it("§5 deprecation warnings are the CRDs' own texts", () => {
    const warnings = loadAgentSandboxTypes().map((t) => t.versions[1]?.deprecationWarning);
    expect(warnings).toEqual([
      "agents.x-k8s.io/v1alpha1 Sandbox is deprecated; use agents.x-k8s.io/v1beta1 Sandbox instead",
      "extensions.agents.x-k8s.io/v1alpha1 SandboxClaim is deprecated; use extensions.agents.x-k8s.io/v1beta1 SandboxClaim instead",
      "extensions.agents.x-k8s.io/v1alpha1 SandboxTemplate is deprecated; use extensions.agents.x-k8s.io/v1beta1 SandboxTemplate instead",
      "extensions.agents.x-k8s.io/v1alpha1 SandboxWarmPool is deprecated; use extensions.agents.x-k8s.io/v1beta1 SandboxWarmPool instead",
    ]);
  });

  it("§5/§4.7 subresources: status except on SandboxTemplate; scale on v1alpha1 Sandbox and both pool versions", () => {
    const table = Object.fromEntries(
      loadAgentSandboxTypes().map((t) => [
        t.kind,
        t.versions.map((v) => [v.name, v.subresources.status, v.subresources.scale !== undefined]),
      ]),
    );
    expect(table).toEqual({
      Sandbox: [
        ["v1beta1", true, false],
        ["v1alpha1", true, true],
      ],
      SandboxClaim: [
        ["v1beta1", true, false],
        ["v1alpha1", true, false],
      ],
      SandboxTemplate: [
        ["v1beta1", false, false],
        ["v1alpha1", false, false],
      ],
      SandboxWarmPool: [
        ["v1beta1", true, true],
        ["v1alpha1", true, true],
      ],
    });
    expect(agentSandboxType("SandboxWarmPool").versions[0]?.subresources.scale).toEqual({
      specReplicasPath: ".spec.replicas",
      statusReplicasPath: ".status.replicas",
      labelSelectorPath: ".status.selector",
    });
  });

  it("an unknown version is a typed error", () => {
    expect(() => admitCustomResource(agentSandboxType("Sandbox"), "v2", {}, undefined)).toThrow(
      UnknownVersionError,
    );
  });
});

describe("compileCrd", () => {
  const crd = (deprecationWarning?: string) => ({
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      names: { kind: "Widget", listKind: "WidgetList", plural: "widgets", singular: "widget" },
      scope: "Cluster",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object" } },
        },
        {
          name: "v1beta1",
          served: true,
          storage: false,
          deprecated: true,
          ...(deprecationWarning === undefined ? {} : { deprecationWarning }),
          schema: { openAPIV3Schema: { type: "object" } },
        },
      ],
    },
  });

  it("§5 a deprecated version without its own text gets Kubernetes' default warning", () => {
    const type = compileCrd(crd());
    expect(type.namespaced).toBe(false);
    expect(type.shortNames).toEqual([]);
    expect(type.versions[1]?.deprecationWarning).toBe(
      "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget",
    );
  });

  it("keeps a CRD's own deprecation text", () => {
    expect(compileCrd(crd("gone soon")).versions[1]?.deprecationWarning).toBe("gone soon");
  });
});
