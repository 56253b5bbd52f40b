/**
 * CEL for the simulated API server: CRD `x-kubernetes-validations` now, ValidatingAdmissionPolicy
 * expressions later. Compile once with the variable names an expression may use, evaluate many
 * times with JSON values; failures are typed so callers can map them to Kubernetes' texts.
 *
 * Kubernetes' CEL treats whole JSON numbers as `int` (int64), so JSON values are converted
 * before evaluation: whole numbers become bigints, other numbers stay doubles.
 */
import { Environment } from "@marcbachmann/cel-js";

/** The expression does not parse or does not type-check against the declared variables. */
export class CelCompileError extends Error {
  override readonly name = "CelCompileError";
  constructor(
    readonly expression: string,
    detail: string,
  ) {
    super(`compilation failed: ${detail}`);
  }
}

/** The expression failed while evaluating (a missing key, a type mismatch, an overflow). */
export class CelEvaluationError extends Error {
  override readonly name = "CelEvaluationError";
  constructor(
    readonly expression: string,
    detail: string,
  ) {
    super(detail);
  }
}

/** A compiled expression; evaluate it with JSON values for its variables. */
export interface CelProgram {
  readonly expression: string;
  /** Returns the result as JSON-ish JS (ints back to numbers); throws {@link CelEvaluationError}. */
  evaluate(variables: Readonly<Record<string, unknown>>): unknown;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? text;
}

/** JSON → CEL input: whole numbers to bigint, recursively. */
export function toCelValue(value: unknown): unknown {
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCelValue);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCelValue(v)]));
  }
  return value;
}

/** CEL output → JSON-ish JS: bigints back to numbers, maps to plain objects. */
export function fromCelValue(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(fromCelValue);
  if (value instanceof Map) {
    return Object.fromEntries([...value].map(([k, v]) => [String(k), fromCelValue(v)]));
  }
  if (typeof value === "object" && value !== null && value.constructor === Object) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromCelValue(v)]));
  }
  return value;
}

/**
 * Compiles `expression` for the given variables (each of CEL type `dyn`). Using any other
 * variable is a compile error, as it is for Kubernetes.
 */
export function compileCel(expression: string, variables: readonly string[]): CelProgram {
  const environment = new Environment({ unlistedVariablesAreDyn: false });
  for (const name of variables) environment.registerVariable(name, "dyn");
  let parsed: ReturnType<Environment["parse"]>;
  try {
    parsed = environment.parse(expression);
    const checked = parsed.check();
    if (!checked.valid) throw checked.error ?? new Error("type check failed");
  } catch (error) {
    throw new CelCompileError(expression, firstLine(error));
  }
  return {
    expression,
    evaluate(values) {
      const context: Record<string, unknown> = {};
      for (const name of variables) context[name] = toCelValue(values[name] ?? null);
      try {
        return fromCelValue(parsed(context));
      } catch (error) {
        throw new CelEvaluationError(expression, firstLine(error));
      }
    },
  };
}
