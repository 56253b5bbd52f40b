import { describe, expect, it } from "vitest";
import { admitCustomResource, admitCustomResourceRequest } from "./admit.ts";
import { RULES_NOT_CHECKED } from "./causes.ts";
import { agentSandboxType, betaSandbox, exampleCrd } from "./testTypes.ts";

const sandbox = agentSandboxType("Sandbox");

const IMMUTABLE = {
  reason: "FieldValueInvalid",
  field: "spec",
  message: 'Invalid value: "object": volumeClaimTemplates is immutable',
};

function vct(size: string) {
  return [{ metadata: { name: "data" }, spec: { resources: { requests: { storage: size } } } }];
}

/** The stored form of a body: what admission made of it. */
function stored(body: Record<string, unknown>) {
  return admitCustomResource(sandbox, "v1beta1", body, undefined).object;
}

describe("§5 the CEL rule on v1beta1 Sandbox spec (volumeClaimTemplates is immutable)", () => {
  it("§5 a change of volumeClaimTemplates on update gives the exact cause", () => {
    const old = stored(betaSandbox({ volumeClaimTemplates: vct("1Gi") }));
    const next = betaSandbox({ volumeClaimTemplates: vct("2Gi") });
    expect(admitCustomResource(sandbox, "v1beta1", next, old).causes).toEqual([IMMUTABLE]);
  });

  it("§5 adding or removing volumeClaimTemplates on update is a change too", () => {
    const without = stored(betaSandbox());
    const withVct = stored(betaSandbox({ volumeClaimTemplates: vct("1Gi") }));
    expect(admitCustomResource(sandbox, "v1beta1", withVct, without).causes).toEqual([IMMUTABLE]);
    expect(admitCustomResource(sandbox, "v1beta1", without, withVct).causes).toEqual([IMMUTABLE]);
  });

  it("§5 an update that keeps volumeClaimTemplates (and changes other fields) passes", () => {
    const old = stored(betaSandbox({ volumeClaimTemplates: vct("1Gi") }));
    const next = betaSandbox({ volumeClaimTemplates: vct("1Gi"), operatingMode: "Suspended" });
    expect(admitCustomResource(sandbox, "v1beta1", next, old).causes).toEqual([]);
  });

  it("§5 a transition rule does not run on create", () => {
    const body = betaSandbox({ volumeClaimTemplates: vct("1Gi") });
    expect(admitCustomResource(sandbox, "v1beta1", body, undefined).causes).toEqual([]);
  });

  it("§5 a blocking schema error keeps CEL from running and adds Kubernetes' note instead", () => {
    const old = stored(betaSandbox({ volumeClaimTemplates: vct("1Gi") }));
    const next = betaSandbox({ volumeClaimTemplates: vct("2Gi"), operatingMode: "Paused" });
    const { causes } = admitCustomResource(sandbox, "v1beta1", next, old);
    expect(causes.map((c) => c.reason)).toEqual(["FieldValueNotSupported", "FieldValueInvalid"]);
    expect(causes[1]).toEqual(RULES_NOT_CHECKED);
    expect(RULES_NOT_CHECKED.message).toBe(
      'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    );
  });

  it("§5 a blocking metadata cause from the server counts too, and comes first", () => {
    const old = stored(betaSandbox({ volumeClaimTemplates: vct("1Gi") }));
    const name = {
      reason: "FieldValueRequired",
      field: "metadata.name",
      message: "Required value",
    } as const;
    const { causes } = admitCustomResourceRequest({
      type: sandbox,
      version: "v1beta1",
      object: betaSandbox({ volumeClaimTemplates: vct("2Gi") }),
      old,
      metadataCauses: [name],
    });
    expect(causes).toEqual([name, RULES_NOT_CHECKED]);
  });

  it("§5 a non-blocking schema error (a pattern) still lets the rule run", () => {
    const old = stored(betaSandbox({ volumeClaimTemplates: vct("1Gi") }));
    const next = betaSandbox({ volumeClaimTemplates: vct("2Gi") });
    next.status = {
      conditions: [
        {
          type: "Ready",
          status: "True",
          reason: "not ok",
          message: "",
          lastTransitionTime: "2026-11-29T13:35:00Z",
        },
      ],
    };
    const { causes } = admitCustomResource(sandbox, "v1beta1", next, old);
    expect(causes.map((c) => c.field)).toEqual(["status.conditions[0].reason", "spec"]);
  });

  it("§5 v1alpha1 Sandbox has no rules, so no note is added to its schema errors", () => {
    const body = { ...betaSandbox(), apiVersion: "agents.x-k8s.io/v1alpha1", spec: {} };
    expect(admitCustomResource(sandbox, "v1alpha1", body, undefined).causes).toEqual([
      { reason: "FieldValueRequired", field: "spec.podTemplate", message: "Required value" },
    ]);
  });
});

describe("x-kubernetes-validations in general", () => {
  const widget = (rules: unknown[]) =>
    exampleCrd("Widget", {
      type: "object",
      properties: {
        min: { type: "integer" },
        max: { type: "integer" },
        tags: { type: "array", items: { type: "string" } },
      },
      "x-kubernetes-validations": rules,
    });
  const body = (spec: Record<string, unknown>) => ({
    apiVersion: "example.com/v1",
    kind: "Widget",
    spec,
  });

  it("a rule without message fails with `failed rule: <rule>`, on create too", () => {
    const type = widget([{ rule: "self.min <= self.max" }]);
    expect(admitCustomResource(type, "v1", body({ min: 2, max: 1 }), undefined).causes).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "spec",
        message: 'Invalid value: "object": failed rule: self.min <= self.max',
      },
    ]);
    expect(admitCustomResource(type, "v1", body({ min: 1, max: 2 }), undefined).causes).toEqual([]);
  });

  it("messageExpression, reason and fieldPath shape the cause", () => {
    const type = widget([
      {
        rule: "size(self.tags) < 2",
        messageExpression: "'too many tags: ' + string(size(self.tags))",
        reason: "FieldValueForbidden",
        fieldPath: ".tags",
      },
    ]);
    expect(admitCustomResource(type, "v1", body({ tags: ["a", "b"] }), undefined).causes).toEqual([
      { reason: "FieldValueForbidden", field: "spec.tags", message: "Forbidden: too many tags: 2" },
    ]);
  });

  it("an evaluation error becomes an Invalid cause naming the rule", () => {
    const type = widget([{ rule: "self.min > 0" }]);
    const [cause] = admitCustomResource(type, "v1", body({}), undefined).causes;
    expect(cause?.field).toBe("spec");
    expect(cause?.message).toMatch(/^Invalid value: "object": .+ evaluating rule: self\.min > 0$/);
  });

  it("transition rules correlate list-type map items by key; atomic list items have no old value", () => {
    const type = exampleCrd("List", {
      type: "object",
      properties: Object.fromEntries(
        ["keyed", "atomic"].map((name) => [
          name,
          {
            type: "array",
            "x-kubernetes-list-type": name === "keyed" ? "map" : "atomic",
            "x-kubernetes-list-map-keys": ["k"],
            items: {
              type: "object",
              properties: {
                k: { type: "string" },
                v: {
                  type: "number",
                  "x-kubernetes-validations": [{ rule: "self >= oldSelf" }],
                },
              },
            },
          },
        ]),
      ),
    });
    const list = (v: number) => [{ k: "a", v }];
    const old = {
      apiVersion: "example.com/v1",
      kind: "List",
      spec: { keyed: list(1), atomic: list(1) },
    };
    const next = { ...old, spec: { keyed: [{ k: "b", v: 0 }, ...list(0.5)], atomic: list(0.5) } };
    expect(admitCustomResource(type, "v1", next, old).causes).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "spec.keyed[1].v",
        message: 'Invalid value: "number": failed rule: self >= oldSelf',
      },
    ]);
  });

  it("a rule that does not compile is refused when the CRD is loaded", () => {
    expect(() => widget([{ rule: "self.min >" }])).toThrow(/compilation failed/);
  });
});
