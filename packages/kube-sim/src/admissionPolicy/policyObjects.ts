/**
 * Typed views of stored ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding objects
 * (§6.1), with the API's defaults filled in. The simulator does not validate these kinds on write,
 * so a malformed field reads as absent here rather than failing the request that stored it.
 */
import type { KubeObject } from "../objects.ts";
import { isObject, meta } from "../objects.ts";

export interface LabelSelectorRequirement {
  key: string;
  operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
  values: string[];
}

export interface LabelSelector {
  matchLabels: Record<string, string>;
  matchExpressions: LabelSelectorRequirement[];
}

export interface ResourceRule {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  operations: string[];
  scope: "*" | "Cluster" | "Namespaced";
}

export interface MatchResources {
  namespaceSelector: LabelSelector;
  objectSelector: LabelSelector;
  resourceRules: ResourceRule[];
  excludeResourceRules: ResourceRule[];
  matchPolicy: "Equivalent" | "Exact";
}

export interface NamedExpression {
  name: string;
  expression: string;
}

/** The `reason` values a validation may set, and the HTTP code each answers with (§6.4). */
export type ValidationReason = "Invalid" | "Forbidden" | "Unauthorized" | "RequestEntityTooLarge";

export interface Validation {
  expression: string;
  message: string | undefined;
  messageExpression: string | undefined;
  reason: ValidationReason;
}

export type FailurePolicy = "Fail" | "Ignore";
export type ValidationAction = "Deny" | "Warn" | "Audit";

export interface Policy {
  name: string;
  /** uid and resourceVersion: compiled expressions are cached under it. */
  revision: string;
  paramKind: { apiVersion: string; kind: string } | undefined;
  matchConstraints: MatchResources;
  matchConditions: NamedExpression[];
  variables: NamedExpression[];
  validations: Validation[];
  failurePolicy: FailurePolicy;
}

export interface ParamRef {
  name: string | undefined;
  namespace: string | undefined;
  selector: LabelSelector | undefined;
  parameterNotFoundAction: "Allow" | "Deny";
}

export interface Binding {
  name: string;
  policyName: string;
  paramRef: ParamRef | undefined;
  /** Undefined: everything the policy matches. */
  matchResources: MatchResources | undefined;
  validationActions: ValidationAction[];
}

function record(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item) => typeof item === "string") : [];
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return allowed.find((option) => option === value) ?? fallback;
}

export function labelSelector(value: unknown): LabelSelector {
  const raw = record(value);
  const matchLabels: Record<string, string> = {};
  for (const [key, label] of Object.entries(record(raw.matchLabels))) {
    if (typeof label === "string") matchLabels[key] = label;
  }
  const matchExpressions = (Array.isArray(raw.matchExpressions) ? raw.matchExpressions : []).map(
    (item): LabelSelectorRequirement => {
      const requirement = record(item);
      return {
        key: text(requirement.key) ?? "",
        operator: oneOf(requirement.operator, ["In", "NotIn", "Exists", "DoesNotExist"], "In"),
        values: strings(requirement.values),
      };
    },
  );
  return { matchLabels, matchExpressions };
}

function rules(value: unknown): ResourceRule[] {
  return (Array.isArray(value) ? value : []).map((item) => {
    const rule = record(item);
    return {
      apiGroups: strings(rule.apiGroups),
      apiVersions: strings(rule.apiVersions),
      resources: strings(rule.resources),
      operations: strings(rule.operations),
      scope: oneOf(rule.scope, ["*", "Cluster", "Namespaced"], "*"),
    };
  });
}

function matchResources(value: unknown): MatchResources {
  const raw = record(value);
  return {
    namespaceSelector: labelSelector(raw.namespaceSelector),
    objectSelector: labelSelector(raw.objectSelector),
    resourceRules: rules(raw.resourceRules),
    excludeResourceRules: rules(raw.excludeResourceRules),
    matchPolicy: oneOf(raw.matchPolicy, ["Equivalent", "Exact"], "Equivalent"),
  };
}

function namedExpressions(value: unknown): NamedExpression[] {
  return (Array.isArray(value) ? value : []).map((item) => {
    const raw = record(item);
    return { name: text(raw.name) ?? "", expression: text(raw.expression) ?? "" };
  });
}

export function policyOf(object: KubeObject): Policy {
  const metadata = meta(object);
  const spec = record(object.spec);
  const paramKind = isObject(spec.paramKind)
    ? {
        apiVersion: text(spec.paramKind.apiVersion) ?? "",
        kind: text(spec.paramKind.kind) ?? "",
      }
    : undefined;
  return {
    name: metadata.name ?? "",
    revision: `${metadata.uid ?? ""}/${metadata.resourceVersion ?? ""}`,
    paramKind,
    matchConstraints: matchResources(spec.matchConstraints),
    matchConditions: namedExpressions(spec.matchConditions),
    variables: namedExpressions(spec.variables),
    validations: (Array.isArray(spec.validations) ? spec.validations : []).map((item) => {
      const raw = record(item);
      return {
        expression: text(raw.expression) ?? "",
        message: text(raw.message),
        messageExpression: text(raw.messageExpression),
        reason: oneOf(
          raw.reason,
          ["Invalid", "Forbidden", "Unauthorized", "RequestEntityTooLarge"],
          "Invalid",
        ),
      };
    }),
    failurePolicy: oneOf(spec.failurePolicy, ["Fail", "Ignore"], "Fail"),
  };
}

export function bindingOf(object: KubeObject): Binding {
  const spec = record(object.spec);
  const rawRef = spec.paramRef;
  const paramRef = isObject(rawRef)
    ? {
        name: text(rawRef.name),
        namespace: text(rawRef.namespace),
        selector: isObject(rawRef.selector) ? labelSelector(rawRef.selector) : undefined,
        // Required by the API whenever paramRef is set (D3); Deny is the stricter reading of a gap.
        parameterNotFoundAction: oneOf(rawRef.parameterNotFoundAction, ["Allow", "Deny"], "Deny"),
      }
    : undefined;
  return {
    name: meta(object).name ?? "",
    policyName: text(spec.policyName) ?? "",
    paramRef,
    matchResources: isObject(spec.matchResources) ? matchResources(spec.matchResources) : undefined,
    validationActions: strings(spec.validationActions).filter(
      (action): action is ValidationAction =>
        action === "Deny" || action === "Warn" || action === "Audit",
    ),
  };
}
