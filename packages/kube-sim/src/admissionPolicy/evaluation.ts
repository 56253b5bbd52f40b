/**
 * Evaluating one policy against one request and one param (§6.3, K14 validator): match
 * conditions, variables, then every validation with its message rules. Expressions compile once
 * per policy revision.
 */
import type { CelProgram } from "../schema/cel.ts";
import { CelCompileError, CelEvaluationError, compileCel } from "../schema/cel.ts";
import type { Policy, ValidationReason } from "./policyObjects.ts";

/**
 * The variables every expression may use. `authorizer` is not simulated (there is no
 * authorization), so an expression that uses it fails to compile: a misconfiguration that
 * `failurePolicy` decides.
 */
const CEL_VARIABLES = ["object", "oldObject", "params", "request", "namespaceObject", "variables"];

/** What one validation concluded. */
export type ValidationOutcome =
  | { kind: "failed"; message: string; reason: ValidationReason }
  /** An expression could not be compiled or evaluated; failurePolicy decides. */
  | { kind: "error"; message: string };

/** What evaluating a policy for one param concluded. */
export type PolicyOutcome =
  | { kind: "notMatched" }
  | { kind: "error"; message: string }
  | { kind: "evaluated"; outcomes: ValidationOutcome[] };

type Compiled = { program: CelProgram } | { error: string };

interface CompiledPolicy {
  matchConditions: { name: string; compiled: Compiled }[];
  variables: { name: string; compiled: Compiled }[];
  validations: {
    expression: string;
    compiled: Compiled;
    message: string | undefined;
    messageExpression: Compiled | undefined;
    reason: ValidationReason;
  }[];
}

function compile(expression: string): Compiled {
  try {
    return { program: compileCel(expression, CEL_VARIABLES) };
  } catch (error) {
    if (error instanceof CelCompileError) return { error: error.message };
    throw error;
  }
}

/** Compiled policies by `uid/resourceVersion`: an edited policy compiles afresh. */
const compiledCache = new Map<string, CompiledPolicy>();
const CACHE_LIMIT = 256;

function compiledPolicy(policy: Policy): CompiledPolicy {
  const cached = compiledCache.get(policy.revision);
  if (cached !== undefined) return cached;
  const compiled: CompiledPolicy = {
    matchConditions: policy.matchConditions.map((c) => ({
      name: c.name,
      compiled: compile(c.expression),
    })),
    variables: policy.variables.map((v) => ({ name: v.name, compiled: compile(v.expression) })),
    validations: policy.validations.map((v) => ({
      expression: v.expression,
      compiled: compile(v.expression),
      message: v.message,
      messageExpression:
        v.messageExpression === undefined ? undefined : compile(v.messageExpression),
      reason: v.reason,
    })),
  };
  if (compiledCache.size >= CACHE_LIMIT) compiledCache.clear();
  compiledCache.set(policy.revision, compiled);
  return compiled;
}

class ExpressionError extends Error {
  override readonly name = "ExpressionError";
}

function run(compiled: Compiled, expression: string, values: Record<string, unknown>): unknown {
  if ("error" in compiled) throw new ExpressionError(compiled.error);
  try {
    return compiled.program.evaluate(values);
  } catch (error) {
    if (error instanceof CelEvaluationError) {
      throw new ExpressionError(`expression '${expression}' resulted in error: ${error.message}`);
    }
    throw error;
  }
}

/**
 * The message of a failed validation (K14): a single-line, non-empty `messageExpression` result,
 * else the trimmed `message`, else `failed expression: <expression>`.
 */
function messageOf(
  validation: CompiledPolicy["validations"][number],
  values: Record<string, unknown>,
): string {
  if (validation.messageExpression !== undefined) {
    try {
      const result = run(validation.messageExpression, "", values);
      if (typeof result === "string" && result.trim() !== "" && !result.includes("\n")) {
        return result.trim();
      }
    } catch (error) {
      // A failing messageExpression falls back to `message`, as the real validator does.
      if (!(error instanceof ExpressionError)) throw error;
    }
  }
  const message = validation.message?.trim() ?? "";
  return message !== "" ? message : `failed expression: ${validation.expression.trim()}`;
}

/** Evaluates `policy` with the given bindings of `object`, `request`, `params` and so on. */
export function evaluatePolicy(
  policy: Policy,
  bound: Omit<Record<string, unknown>, "variables">,
): PolicyOutcome {
  const compiled = compiledPolicy(policy);
  const values: Record<string, unknown> = { ...bound, variables: {} };
  try {
    // Match conditions: any false skips the policy; an error with none false is an error.
    let conditionError: string | undefined;
    for (const [index, condition] of compiled.matchConditions.entries()) {
      try {
        const result = run(
          condition.compiled,
          policy.matchConditions[index]?.expression ?? "",
          values,
        );
        if (result === false) return { kind: "notMatched" };
        if (result !== true) {
          conditionError ??= `matchCondition '${condition.name}' did not evaluate to a bool`;
        }
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        conditionError ??= error.message;
      }
    }
    if (conditionError !== undefined) return { kind: "error", message: conditionError };
    // Variables are evaluated in order, each seeing the ones before it.
    const variables: Record<string, unknown> = {};
    for (const [index, variable] of compiled.variables.entries()) {
      values.variables = { ...variables };
      variables[variable.name] = run(
        variable.compiled,
        policy.variables[index]?.expression ?? "",
        values,
      );
    }
    values.variables = variables;
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    return { kind: "error", message: error.message };
  }
  const outcomes: ValidationOutcome[] = [];
  for (const validation of compiled.validations) {
    try {
      const result = run(validation.compiled, validation.expression, values);
      if (result === true) continue;
      if (result !== false) {
        outcomes.push({
          kind: "error",
          message: `expression '${validation.expression}' resulted in error: cel expression must evaluate to a bool`,
        });
        continue;
      }
      outcomes.push({
        kind: "failed",
        message: messageOf(validation, values),
        reason: validation.reason,
      });
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      outcomes.push({ kind: "error", message: error.message });
    }
  }
  return { kind: "evaluated", outcomes };
}
