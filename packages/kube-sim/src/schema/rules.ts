import type { CelProgram } from "./cel.ts";
import { CelEvaluationError, compileCel } from "./cel.ts";
import { forbidden, invalid, required } from "./causes.ts";
import { childPath, indexPath, isRecord, jsonEqual } from "./json.ts";
import type { Structural, ValidationRule } from "./structural.ts";
import type { FieldCause } from "./types.ts";

/**
 * `x-kubernetes-validations`: each rule runs with `self` bound to the value at its node.
 * A rule that mentions `oldSelf` is a transition rule: it runs only on update and only where
 * the old object has a value at the same place (reached through object fields, map keys and
 * `list-type: map` keys; items of other lists have no old counterpart).
 */

interface CompiledRule {
  rule: ValidationRule;
  program: CelProgram;
  message: CelProgram | undefined;
  transition: boolean;
}

// Compiled programs hang off the rule objects of the compiled schema, so each compiles once.
const compiled = new WeakMap<ValidationRule, CompiledRule>();

// Kubernetes decides this from the compiled AST; a word match differs only when a string
// literal spells `oldSelf`, which no CRD here does.
const OLD_SELF = /\boldSelf\b/;

function compileRule(rule: ValidationRule): CompiledRule {
  const cached = compiled.get(rule);
  if (cached !== undefined) return cached;
  const transition = OLD_SELF.test(rule.rule);
  const variables = transition ? ["self", "oldSelf"] : ["self"];
  const entry: CompiledRule = {
    rule,
    program: compileCel(rule.rule, variables),
    message:
      rule.messageExpression === undefined
        ? undefined
        : compileCel(rule.messageExpression, variables),
    transition,
  };
  compiled.set(rule, entry);
  return entry;
}

/** Compiles every rule under `schema` now, so a bad rule fails at load, not at first use. */
export function compileRules(schema: Structural): void {
  visitSchemas(schema, (node) => node.validations.forEach(compileRule));
}

const ruleBearing = new WeakMap<Structural, boolean>();

/** Whether any node under `schema` carries rules (Kubernetes skips CEL entirely otherwise). */
export function hasRules(schema: Structural): boolean {
  let found = ruleBearing.get(schema);
  if (found === undefined) {
    found = false;
    visitSchemas(schema, (node) => {
      found ||= node.validations.length > 0;
    });
    ruleBearing.set(schema, found);
  }
  return found;
}

function visitSchemas(schema: Structural, visit: (node: Structural) => void): void {
  visit(schema);
  for (const child of schema.properties.values()) visitSchemas(child, visit);
  if (schema.items !== undefined) visitSchemas(schema.items, visit);
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== true) {
    visitSchemas(schema.additionalProperties, visit);
  }
}

function ruleText(rule: ValidationRule): string {
  return rule.message?.trim() || rule.rule.trim();
}

function failureMessage(entry: CompiledRule, variables: Record<string, unknown>): string {
  if (entry.message !== undefined) {
    try {
      const text = entry.message.evaluate(variables);
      if (typeof text === "string" && text.trim() !== "" && !text.includes("\n")) return text;
    } catch {
      // Kubernetes falls back to the static message when messageExpression fails.
    }
  }
  const message = entry.rule.message?.trim();
  return message ? message : `failed rule: ${ruleText(entry.rule)}`;
}

/** A rule's failure as Kubernetes reports it: at the rule's node (or its fieldPath), by its reason. */
function causeFor(
  entry: CompiledRule,
  node: { path: string; schema: Structural },
  detail: string,
): FieldCause {
  const { fieldPath, reason } = entry.rule;
  const field = fieldPath?.startsWith(".") ? `${node.path}${fieldPath}` : node.path;
  // Any other reason (FieldValueInvalid, none, or one Kubernetes would have refused) is Invalid.
  if (reason === "FieldValueForbidden") return forbidden(field, detail);
  if (reason === "FieldValueRequired") return required(field, detail);
  return invalid(field, node.schema.type ?? "", detail);
}

function runNodeRules(
  node: { value: unknown; old: unknown; schema: Structural; path: string },
  causes: FieldCause[],
): void {
  for (const rule of node.schema.validations) {
    const entry = compileRule(rule);
    if (entry.transition && (node.old === undefined || node.old === null)) continue;
    const variables = { self: node.value, oldSelf: node.old };
    try {
      if (entry.program.evaluate(variables) !== true) {
        causes.push(causeFor(entry, node, failureMessage(entry, variables)));
      }
    } catch (error) {
      if (!(error instanceof CelEvaluationError)) throw error;
      const detail = `${error.message} evaluating rule: ${ruleText(rule)}`;
      causes.push(causeFor(entry, node, detail));
    }
  }
}

function oldListItem(item: unknown, old: unknown, schema: Structural): unknown {
  if (schema.listType !== "map" || !Array.isArray(old) || !isRecord(item)) return undefined;
  const keys = schema.listMapKeys;
  return old.find(
    (candidate) => isRecord(candidate) && keys.every((k) => jsonEqual(candidate[k], item[k])),
  );
}

function walk(
  node: { value: unknown; old: unknown; schema: Structural; path: string },
  causes: FieldCause[],
): void {
  const { value, old, schema, path } = node;
  if (value === null || value === undefined) return;
  runNodeRules(node, causes);
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items === undefined) return;
    value.forEach((item, index) => {
      const oldItem = oldListItem(item, old, schema);
      walk({ value: item, old: oldItem, schema: items, path: indexPath(path, index) }, causes);
    });
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const next = schema.properties.get(key) ?? schema.additionalProperties;
    if (next === undefined || next === true) continue;
    const oldChild = isRecord(old) ? old[key] : undefined;
    walk({ value: child, old: oldChild, schema: next, path: childPath(path, key) }, causes);
  }
}

/** Runs every rule under `schema` against `value` (and `old` on update) and returns the failures. */
export function runValidationRules(value: unknown, old: unknown, schema: Structural): FieldCause[] {
  const causes: FieldCause[] = [];
  walk({ value, old, schema, path: "" }, causes);
  return causes;
}
