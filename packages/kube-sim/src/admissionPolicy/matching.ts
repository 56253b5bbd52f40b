/**
 * Which requests a policy or binding selects (§6.1): resource rules with `*` wildcards and
 * subresources, exclusions, scope, and the namespace and object label selectors.
 */
import type { AdmissionRequest } from "../admission.ts";
import type { KubeObject } from "../objects.ts";
import { meta } from "../objects.ts";
import type { LabelSelector, MatchResources, ResourceRule } from "./policyObjects.ts";

export function selectorMatches(
  selector: LabelSelector,
  labels: Record<string, string> | undefined,
): boolean {
  const present = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels)) {
    if (present[key] !== value) return false;
  }
  return selector.matchExpressions.every((requirement) => {
    const value = present[requirement.key];
    switch (requirement.operator) {
      case "In":
        return value !== undefined && requirement.values.includes(value);
      case "NotIn":
        return value === undefined || !requirement.values.includes(value);
      case "Exists":
        return value !== undefined;
      case "DoesNotExist":
        return value === undefined;
    }
  });
}

/** `pods` matches only the main resource; `pods/*`, `*` and `*\/*` as Kubernetes reads them. */
function resourceMatches(pattern: string, plural: string, subresource: string): boolean {
  const [resourcePattern = "", subPattern] = pattern.split("/", 2);
  const resourceOk = resourcePattern === "*" || resourcePattern === plural;
  if (!resourceOk) return false;
  if (subPattern === undefined) return subresource === "";
  return subPattern === "*" || subPattern === subresource;
}

function wildcard(list: string[], value: string): boolean {
  return list.includes("*") || list.includes(value);
}

function ruleMatches(
  rule: ResourceRule,
  request: AdmissionRequest,
  matchPolicy: MatchResources["matchPolicy"],
): boolean {
  const { type } = request;
  // Equivalent (the default) matches a request made in any version of the resource.
  const versions =
    matchPolicy === "Exact" ? [request.version] : type.versions.map((version) => version.name);
  const scopeOk =
    rule.scope === "*" || (rule.scope === "Namespaced") === (request.namespace !== undefined);
  return (
    wildcard(rule.operations, request.operation) &&
    wildcard(rule.apiGroups, type.group) &&
    versions.some((version) => wildcard(rule.apiVersions, version)) &&
    rule.resources.some((pattern) => resourceMatches(pattern, type.plural, request.subresource)) &&
    scopeOk
  );
}

/** The labels the namespace selector sees: the namespace's, or a Namespace object's own. */
function namespaceLabels(
  request: AdmissionRequest,
  namespaceObject: KubeObject | undefined,
): Record<string, string> | undefined {
  if (request.type.group === "" && request.type.plural === "namespaces") {
    return meta(request.object ?? request.oldObject ?? {}).labels;
  }
  return namespaceObject === undefined ? undefined : meta(namespaceObject).labels;
}

/**
 * Whether `match` selects the request. `rulesRequired: false` is a binding's matchResources,
 * where leaving out resourceRules does not narrow the policy's match.
 */
export function matches(
  match: MatchResources,
  request: AdmissionRequest,
  context: { namespaceObject: KubeObject | undefined; rulesRequired: boolean },
): boolean {
  const clusterScoped =
    request.namespace === undefined &&
    !(request.type.group === "" && request.type.plural === "namespaces");
  // Cluster-scoped objects (other than namespaces) are not subject to the namespace selector.
  if (
    !clusterScoped &&
    !selectorMatches(match.namespaceSelector, namespaceLabels(request, context.namespaceObject))
  ) {
    return false;
  }
  // The object selector passes when the new or the old object matches.
  const objects = [request.object, request.oldObject].filter((object) => object !== undefined);
  if (!objects.some((object) => selectorMatches(match.objectSelector, meta(object).labels))) {
    return false;
  }
  if (match.resourceRules.length > 0 || context.rulesRequired) {
    if (!match.resourceRules.some((rule) => ruleMatches(rule, request, match.matchPolicy))) {
      return false;
    }
  }
  return !match.excludeResourceRules.some((rule) => ruleMatches(rule, request, match.matchPolicy));
}
