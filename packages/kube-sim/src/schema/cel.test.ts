import { describe, expect, it } from "vitest";
import {
  CelCompileError,
  CelEvaluationError,
  compileCel,
  fromCelValue,
  toCelValue,
} from "./cel.ts";

describe("cel wrapper (used for CRD rules now and ValidatingAdmissionPolicy later)", () => {
  it("§6 whole JSON numbers are CEL ints: `self.x == 1` holds for 1, and int arithmetic works", () => {
    const program = compileCel("self.x == 1 && self.x + 1 == 2", ["self"]);
    expect(program.evaluate({ self: { x: 1 } })).toBe(true);
    expect(compileCel("self.x * 2", ["self"]).evaluate({ self: { x: 21 } })).toBe(42);
  });

  it("has(), and equality of lists and maps, as the immutability rule needs", () => {
    const program = compileCel("has(self.a) && self.a == oldSelf.a", ["self", "oldSelf"]);
    const value = { a: [{ k: "v", n: 1 }, "x"] };
    expect(program.evaluate({ self: value, oldSelf: structuredClone(value) })).toBe(true);
    expect(program.evaluate({ self: value, oldSelf: { a: [{ k: "v", n: 2 }, "x"] } })).toBe(false);
    expect(program.evaluate({ self: {}, oldSelf: value })).toBe(false);
  });

  it("§6 params-style access: int() of a ConfigMap string", () => {
    const program = compileCel("int(params.data.max) > 2", ["params"]);
    expect(program.evaluate({ params: { data: { max: "3" } } })).toBe(true);
  });

  it("results come back as JSON values (ints as numbers, maps as objects)", () => {
    expect(compileCel("{'n': 1, 'm': 2}", []).evaluate({})).toEqual({ n: 1, m: 2 });
    expect(compileCel("[2.5, 3.5]", []).evaluate({})).toEqual([2.5, 3.5]);
    expect(toCelValue({ a: [1, 1.5] })).toEqual({ a: [1n, 1.5] });
    expect(fromCelValue(new Map([["k", 2n]]))).toEqual({ k: 2 });
  });

  it("syntax errors, undeclared variables and mixed list literals are typed compile errors", () => {
    expect(() => compileCel("self.", ["self"])).toThrow(CelCompileError);
    // Kubernetes' CEL environment also requires homogeneous aggregate literals.
    expect(() => compileCel("[1, 'a']", [])).toThrow(CelCompileError);
    expect(() => compileCel("other == 1", ["self"])).toThrow(CelCompileError);
  });

  it("a missing key is a typed evaluation error", () => {
    const program = compileCel("self.missing == 1", ["self"]);
    expect(() => program.evaluate({ self: {} })).toThrow(CelEvaluationError);
  });
});
