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

interface CompiledVariable {
  name: string;
  expression: string;
  compiled: Compiled;
  /** The variables its expression names. */
  refs: string[];
}

interface CompiledPolicy {
  matchConditions: { name: string; compiled: Compiled }[];
  variables: CompiledVariable[];
  validations: {
    expression: string;
    compiled: Compiled;
    refs: string[];
    message: string | undefined;
    messageExpression: Compiled | undefined;
    messageRefs: string[];
    reason: ValidationReason;
  }[];
}

const VARIABLE_REFERENCE = /\bvariables\.([A-Za-z_][A-Za-z0-9_]*)/g;

/** The names an expression reads as `variables.<name>` (a textual scan is enough for that). */
function referencedVariables(expression: string | undefined): string[] {
  if (expression === undefined) return [];
  return [...new Set([...expression.matchAll(VARIABLE_REFERENCE)].map((match) => match[1] ?? ""))];
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
    variables: policy.variables.map((v) => ({
      name: v.name,
      expression: v.expression,
      compiled: compile(v.expression),
      refs: referencedVariables(v.expression),
    })),
    validations: policy.validations.map((v) => ({
      expression: v.expression,
      compiled: compile(v.expression),
      refs: referencedVariables(v.expression),
      message: v.message,
      messageExpression:
        v.messageExpression === undefined ? undefined : compile(v.messageExpression),
      messageRefs: referencedVariables(v.messageExpression),
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
 * Variables evaluated on first use and remembered for the request, as Kubernetes evaluates them
 * lazily: a variable that fails only fails the expressions that use it.
 */
class LazyVariables {
  private readonly results = new Map<string, { value: unknown } | { error: string }>();
  private readonly resolving = new Set<string>();

  constructor(
    private readonly variables: CompiledVariable[],
    private readonly bound: Record<string, unknown>,
  ) {}

  /** The `variables` map an expression naming `names` sees; throws if one of them failed. */
  scope(names: string[]): Record<string, unknown> {
    const scope: Record<string, unknown> = {};
    for (const name of names) {
      const variable = this.variables.find((candidate) => candidate.name === name);
      // An unknown name is left out, so the expression fails on it as a missing key.
      if (variable !== undefined) scope[name] = this.value(variable);
    }
    return scope;
  }

  /** `bound` plus the variables `names` need. */
  values(names: string[]): Record<string, unknown> {
    return { ...this.bound, variables: this.scope(names) };
  }

  private value(variable: CompiledVariable): unknown {
    let result = this.results.get(variable.name);
    if (result === undefined) {
      if (this.resolving.has(variable.name)) {
        throw new ExpressionError(`variable '${variable.name}' refers to itself`);
      }
      this.resolving.add(variable.name);
      try {
        result = { value: run(variable.compiled, variable.expression, this.values(variable.refs)) };
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        result = { error: error.message };
      } finally {
        this.resolving.delete(variable.name);
      }
      this.results.set(variable.name, result);
    }
    if ("error" in result) throw new ExpressionError(result.error);
    return result.value;
  }
}

/**
 * The message of a failed validation (K14): a single-line, non-empty `messageExpression` result,
 * else the trimmed `message`, else `failed expression: <expression>`.
 */
function messageOf(
  validation: CompiledPolicy["validations"][number],
  variables: LazyVariables,
): string {
  if (validation.messageExpression !== undefined) {
    try {
      const result = run(
        validation.messageExpression,
        "",
        variables.values(validation.messageRefs),
      );
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
  // Match conditions see no variables: they decide whether the policy applies at all.
  const values: Record<string, unknown> = { ...bound, variables: {} };
  // Any false skips the policy; an error with none false is an error.
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
  const variables = new LazyVariables(compiled.variables, bound);
  const outcomes: ValidationOutcome[] = [];
  for (const validation of compiled.validations) {
    try {
      const result = run(
        validation.compiled,
        validation.expression,
        variables.values(validation.refs),
      );
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
        message: messageOf(validation, variables),
        reason: validation.reason,
      });
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      outcomes.push({ kind: "error", message: error.message });
    }
  }
  return { kind: "evaluated", outcomes };
}
