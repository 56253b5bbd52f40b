import { describe, expect, it } from "vitest";
import { admitCustomResource } from "./admit.ts";
import { unknownFieldOutcome } from "./fieldValidation.ts";
import { agentSandboxType, exampleCrd } from "./testTypes.ts";

/** A one-version CRD whose `spec` has the given properties. */
function gadget(properties: Record<string, unknown>) {
  return exampleCrd("Gadget", { type: "object", properties });
}

function admit(properties: Record<string, unknown>, spec: Record<string, unknown>) {
  const body = { apiVersion: "example.com/v1", kind: "Gadget", metadata: { name: "g" }, spec };
  return admitCustomResource(gadget(properties), "v1", body, undefined);
}

describe("structural schema features the agent-sandbox CRDs do not use", () => {
  it("x-kubernetes-preserve-unknown-fields keeps unknown fields but prunes declared ones by their schema", () => {
    const admission = admit(
      {
        free: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
          properties: { known: { type: "object", properties: { a: { type: "string" } } } },
        },
      },
      { free: { anything: { deep: 1 }, known: { a: "x", b: "pruned" } } },
    );
    expect(admission.unknownFields).toEqual(["spec.free.known.b"]);
    expect(admission.object.spec).toEqual({ free: { anything: { deep: 1 }, known: { a: "x" } } });
  });

  it("x-kubernetes-embedded-resource keeps apiVersion, kind and metadata and requires the first two", () => {
    const embedded = {
      type: "object",
      "x-kubernetes-embedded-resource": true,
      properties: { spec: { type: "object", properties: {} } },
    };
    const ok = admit(
      { inner: embedded },
      { inner: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, x: 1 } },
    );
    expect(ok.unknownFields).toEqual(["spec.inner.x"]);
    expect(ok.causes).toEqual([]);
    const bad = admit({ inner: embedded }, { inner: { kind: "" } });
    expect(bad.causes).toEqual([
      {
        reason: "FieldValueRequired",
        field: "spec.inner.apiVersion",
        message: "Required value: must not be empty",
      },
      {
        reason: "FieldValueInvalid",
        field: "spec.inner.kind",
        message: 'Invalid value: "": must not be empty',
      },
    ]);
  });

  it("nullable keeps null; a non-nullable null without default is dropped", () => {
    const admission = admit(
      { keep: { type: "string", nullable: true }, drop: { type: "string" } },
      { keep: null, drop: null },
    );
    expect(admission.object.spec).toEqual({ keep: null });
    expect(admission.causes).toEqual([]);
  });

  it("maxLength is TooLong; minLength, maximum and exclusive bounds are Invalid", () => {
    const { causes } = admit(
      {
        long: { type: "string", maxLength: 3 },
        short: { type: "string", minLength: 2 },
        big: { type: "integer", maximum: 1 },
        positive: { type: "number", minimum: 0, exclusiveMinimum: true },
      },
      { long: "abcd", short: "a", big: 2, positive: 0 },
    );
    expect(causes).toEqual([
      {
        reason: "FieldValueTooLong",
        field: "spec.long",
        message: "Too long: may not be more than 3 bytes",
      },
      {
        reason: "FieldValueInvalid",
        field: "spec.short",
        message: 'Invalid value: "a": spec.short in body should be at least 2 chars long',
      },
      {
        reason: "FieldValueInvalid",
        field: "spec.big",
        message: "Invalid value: 2: spec.big in body should be less than or equal to 1",
      },
      {
        reason: "FieldValueInvalid",
        field: "spec.positive",
        message: "Invalid value: 0: spec.positive in body should be greater than 0",
      },
    ]);
  });

  it("type and enum errors are both reported for one value, integer enums quoted", () => {
    const { causes } = admit({ n: { type: "integer", enum: [1, 2] } }, { n: "x" });
    expect(causes.map((c) => c.message)).toEqual([
      'Invalid value: "string": spec.n in body must be of type integer: "string"',
      'Unsupported value: "x": supported values: "1", "2"',
    ]);
  });

  it("int-or-string with anyOf (as the CRDs' quantities): type error, the anyOf note, the first branch's error", () => {
    const quantity = {
      anyOf: [{ type: "integer" }, { type: "string" }],
      "x-kubernetes-int-or-string": true,
    };
    expect(admit({ q: quantity }, { q: 1 }).causes).toEqual([]);
    expect(admit({ q: quantity }, { q: "1Gi" }).causes).toEqual([]);
    expect(admit({ q: quantity }, { q: true }).causes).toEqual([
      {
        reason: "FieldValueTypeInvalid",
        field: "spec.q",
        message:
          'Invalid value: "boolean": spec.q in body must be of type integer,string: "boolean"',
      },
      {
        reason: "FieldValueInvalid",
        field: "<nil>",
        message: 'Invalid value: "": "spec.q" must validate at least one schema (anyOf)',
      },
      {
        reason: "FieldValueTypeInvalid",
        field: "spec.q",
        message: 'Invalid value: "boolean": spec.q in body must be of type integer: "boolean"',
      },
    ]);
  });

  it("list-type set items must be unique", () => {
    const { causes } = admit(
      { tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } } },
      { tags: ["a", "b", "a"] },
    );
    expect(causes).toEqual([
      { reason: "FieldValueDuplicate", field: "spec.tags[2]", message: 'Duplicate value: "a"' },
    ]);
  });
});

describe("§5 fieldValidation for pruned fields", () => {
  const sandbox = { type: agentSandboxType("Sandbox"), version: "v1beta1" };
  const pruned = ["spec.replicas", "spec.x[0].y"];

  it("§5 Warn (the default) warns once per field with Kubernetes' text", () => {
    expect(unknownFieldOutcome("Warn", sandbox, pruned)).toEqual({
      kind: "accept",
      warnings: ['unknown field "spec.replicas"', 'unknown field "spec.x[0].y"'],
    });
  });

  it("§5 Ignore drops them silently; Strict refuses with the strict decoding text", () => {
    expect(unknownFieldOutcome("Ignore", sandbox, pruned)).toEqual({
      kind: "accept",
      warnings: [],
    });
    expect(unknownFieldOutcome("Strict", sandbox, pruned)).toEqual({
      kind: "reject",
      message:
        'Sandbox in version "v1beta1" cannot be handled as a Sandbox: strict decoding error: unknown field "spec.replicas", unknown field "spec.x[0].y"',
    });
    expect(unknownFieldOutcome("Strict", sandbox, [])).toEqual({ kind: "accept", warnings: [] });
  });
});
