import { describe, expect, it } from "vitest";
import { admitCustomResource } from "./admit.ts";
import { agentSandboxType, betaSandbox, extension } from "./testTypes.ts";
import type { FieldCause } from "./types.ts";

const sandbox = agentSandboxType("Sandbox");
const claim = agentSandboxType("SandboxClaim");
const pool = agentSandboxType("SandboxWarmPool");

/** The causes other than the "rules were not checked" note that Sandbox v1beta1 adds. */
function schemaCauses(causes: FieldCause[]): FieldCause[] {
  return causes.filter((cause) => cause.field !== "<nil>");
}

describe("§5 OpenAPI validation: required fields", () => {
  it("§5 a Sandbox without spec: `spec: Required value`", () => {
    const body = {
      apiVersion: "agents.x-k8s.io/v1beta1",
      kind: "Sandbox",
      metadata: { name: "sb1" },
    };
    const { causes } = admitCustomResource(sandbox, "v1beta1", body, undefined);
    expect(schemaCauses(causes)).toEqual([
      { reason: "FieldValueRequired", field: "spec", message: "Required value" },
    ]);
  });

  it("§5 Sandbox spec.podTemplate and podTemplate.spec.containers are required", () => {
    const noTemplate = admitCustomResource(
      sandbox,
      "v1beta1",
      { ...betaSandbox(), spec: {} },
      undefined,
    );
    expect(schemaCauses(noTemplate.causes)).toEqual([
      { reason: "FieldValueRequired", field: "spec.podTemplate", message: "Required value" },
    ]);
    const noContainers = admitCustomResource(
      sandbox,
      "v1beta1",
      betaSandbox({ podTemplate: { spec: {} } }),
      undefined,
    );
    expect(schemaCauses(noContainers.causes)).toEqual([
      {
        reason: "FieldValueRequired",
        field: "spec.podTemplate.spec.containers",
        message: "Required value",
      },
    ]);
  });

  it("§5 SandboxClaim needs spec.warmPoolRef.name; SandboxWarmPool needs spec.sandboxTemplateRef.name", () => {
    const c = admitCustomResource(
      claim,
      "v1beta1",
      extension("SandboxClaim", "v1beta1", { warmPoolRef: {} }),
      undefined,
    );
    expect(c.causes).toEqual([
      { reason: "FieldValueRequired", field: "spec.warmPoolRef.name", message: "Required value" },
    ]);
    const p = admitCustomResource(
      pool,
      "v1beta1",
      extension("SandboxWarmPool", "v1beta1", {}),
      undefined,
    );
    expect(p.causes).toEqual([
      { reason: "FieldValueRequired", field: "spec.sandboxTemplateRef", message: "Required value" },
    ]);
  });
});

describe("§5 OpenAPI validation: enums, bounds, formats, types", () => {
  it("§5 operatingMode Paused: Unsupported value with the supported list", () => {
    const { causes } = admitCustomResource(
      sandbox,
      "v1beta1",
      betaSandbox({ operatingMode: "Paused" }),
      undefined,
    );
    expect(schemaCauses(causes)).toEqual([
      {
        reason: "FieldValueNotSupported",
        field: "spec.operatingMode",
        message: 'Unsupported value: "Paused": supported values: "Running", "Suspended"',
      },
    ]);
  });

  it("§5 Sandbox shutdownPolicy and claim lifecycle.shutdownPolicy enums", () => {
    const s = admitCustomResource(
      sandbox,
      "v1beta1",
      betaSandbox({ shutdownPolicy: "Never" }),
      undefined,
    );
    expect(schemaCauses(s.causes)[0]?.message).toBe(
      'Unsupported value: "Never": supported values: "Delete", "Retain"',
    );
    const body = extension("SandboxClaim", "v1beta1", {
      warmPoolRef: { name: "p" },
      lifecycle: { shutdownPolicy: "Later" },
    });
    expect(admitCustomResource(claim, "v1beta1", body, undefined).causes).toEqual([
      {
        reason: "FieldValueNotSupported",
        field: "spec.lifecycle.shutdownPolicy",
        message:
          'Unsupported value: "Later": supported values: "Delete", "DeleteForeground", "Retain"',
      },
    ]);
  });

  it("§5 pool replicas ≥ 0 and claim ttlSecondsAfterFinished ≥ 0 (minimum)", () => {
    const p = extension("SandboxWarmPool", "v1beta1", {
      sandboxTemplateRef: { name: "t" },
      replicas: -1,
    });
    expect(admitCustomResource(pool, "v1beta1", p, undefined).causes).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "spec.replicas",
        message: "Invalid value: -1: spec.replicas in body should be greater than or equal to 0",
      },
    ]);
    const c = extension("SandboxClaim", "v1beta1", {
      warmPoolRef: { name: "p" },
      lifecycle: { ttlSecondsAfterFinished: -5 },
    });
    expect(admitCustomResource(claim, "v1beta1", c, undefined).causes[0]?.message).toBe(
      "Invalid value: -5: spec.lifecycle.ttlSecondsAfterFinished in body should be greater than or equal to 0",
    );
  });

  it("§5 shutdownTime must be a date-time (a type error naming the bad string)", () => {
    const bad = admitCustomResource(
      sandbox,
      "v1beta1",
      betaSandbox({ shutdownTime: "tomorrow" }),
      undefined,
    );
    expect(schemaCauses(bad.causes)).toEqual([
      {
        reason: "FieldValueTypeInvalid",
        field: "spec.shutdownTime",
        message:
          'Invalid value: "tomorrow": spec.shutdownTime in body must be of type date-time: "tomorrow"',
      },
    ]);
    for (const good of ["2026-11-29T13:35:00Z", "2026-11-29T13:35:00.123+01:00"]) {
      const ok = admitCustomResource(
        sandbox,
        "v1beta1",
        betaSandbox({ shutdownTime: good }),
        undefined,
      );
      expect(ok.causes).toEqual([]);
    }
    const feb30 = admitCustomResource(
      sandbox,
      "v1beta1",
      betaSandbox({ shutdownTime: "2026-02-30T00:00:00Z" }),
      undefined,
    );
    expect(schemaCauses(feb30.causes)).toHaveLength(1);
  });

  it('§5 a wrong JSON type: `Invalid value: "string": … must be of type integer: "string"`', () => {
    const p = extension("SandboxWarmPool", "v1beta1", {
      sandboxTemplateRef: { name: "t" },
      replicas: "3",
    });
    expect(admitCustomResource(pool, "v1beta1", p, undefined).causes).toEqual([
      {
        reason: "FieldValueTypeInvalid",
        field: "spec.replicas",
        message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      },
    ]);
  });

  it("§4.6 status conditions: pattern on reason, enum on status, required fields", () => {
    const body = betaSandbox();
    body.status = {
      conditions: [{ type: "Ready", status: "Maybe", reason: "not ok", message: "m" }],
    };
    const { causes } = admitCustomResource(sandbox, "v1beta1", body, undefined);
    expect(schemaCauses(causes)).toEqual([
      {
        reason: "FieldValueRequired",
        field: "status.conditions[0].lastTransitionTime",
        message: "Required value",
      },
      {
        reason: "FieldValueNotSupported",
        field: "status.conditions[0].status",
        message: 'Unsupported value: "Maybe": supported values: "True", "False", "Unknown"',
      },
      {
        reason: "FieldValueInvalid",
        field: "status.conditions[0].reason",
        message:
          "Invalid value: \"not ok\": status.conditions[0].reason in body should match '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'",
      },
    ]);
  });

  it("§5 list-type map keys must be unique (a duplicate container name)", () => {
    const body = betaSandbox({
      podTemplate: { spec: { containers: [{ name: "a" }, { name: "a" }] } },
    });
    expect(schemaCauses(admitCustomResource(sandbox, "v1beta1", body, undefined).causes)).toEqual([
      {
        reason: "FieldValueDuplicate",
        field: "spec.podTemplate.spec.containers[1]",
        message: 'Duplicate value: {"name":"a"}',
      },
    ]);
  });

  it("§5 int-or-string quantities accept both and check strings against the pattern", () => {
    const body = betaSandbox({
      volumeClaimTemplates: [
        {
          metadata: { name: "d" },
          spec: { resources: { requests: { storage: "1Gi", cpu: 2, memory: "lots" } } },
        },
      ],
    });
    const { causes } = admitCustomResource(sandbox, "v1beta1", body, undefined);
    expect(schemaCauses(causes).map((c) => [c.reason, c.field])).toEqual([
      ["FieldValueInvalid", "spec.volumeClaimTemplates[0].spec.resources.requests.memory"],
    ]);
  });
});
