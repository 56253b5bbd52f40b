/**
 * ValidatingAdmissionPolicy as an admission hook (§6, K14 dispatcher). Policies, bindings and
 * params are read from the store on every request, so a new policy applies at once (the spec
 * allows that; real servers lag by an informer sync). Compiled expressions are cached per policy
 * resourceVersion in evaluation.ts.
 */
import type { AdmissionHook, AdmissionRequest } from "../admission.ts";
import { DEFAULT_USER } from "../admission.ts";
import type { MessageCause, StatusDetails } from "../errors.ts";
import { KubeStatusError, qualifiedResource } from "../errors.ts";
import type { KubeObject } from "../objects.ts";
import { meta } from "../objects.ts";
import type { ResourceRegistry, ResourceType } from "../resourceTypes.ts";
import { groupVersion } from "../resourceTypes.ts";
import type { ObjectStore } from "../store.ts";
import { evaluatePolicy } from "./evaluation.ts";
import { matches, selectorMatches } from "./matching.ts";
import type { Binding, Policy, ValidationReason } from "./policyObjects.ts";
import { bindingOf, policyOf } from "./policyObjects.ts";

const GROUP = "admissionregistration.k8s.io";
const POLICIES = `${GROUP}/validatingadmissionpolicies`;
const BINDINGS = `${GROUP}/validatingadmissionpolicybindings`;

/** One denial: only the first one found is answered (§6.4). */
interface Denial {
  policy: string;
  binding: string | undefined;
  message: string;
  reason: ValidationReason;
}

/** Where params come from, or why there are none (a configuration error). */
type Params =
  { kind: "params"; objects: (KubeObject | null)[] } | { kind: "configError"; message: string };

function paramType(
  types: ResourceRegistry,
  paramKind: Policy["paramKind"],
): ResourceType | undefined {
  if (paramKind === undefined) return undefined;
  return types.types.find(
    (type) =>
      type.kind === paramKind.kind &&
      type.versions.some((version) => groupVersion(type, version.name) === paramKind.apiVersion),
  );
}

function resolveParams(
  $: { store: ObjectStore; types: ResourceRegistry },
  evaluation: { policy: Policy; binding: Binding; request: AdmissionRequest },
): Params {
  const { policy, binding, request } = evaluation;
  // paramKind without paramRef (or no paramKind at all): params is null (§6.2).
  if (policy.paramKind === undefined || binding.paramRef === undefined) {
    return { kind: "params", objects: [null] };
  }
  const type = paramType($.types, policy.paramKind);
  // The hook checks the paramKind per policy first; this only narrows the type.
  if (type === undefined) return { kind: "params", objects: [null] };
  const ref = binding.paramRef;
  let namespace: string | undefined;
  if (type.namespaced) {
    // An empty paramRef.namespace means the request's own namespace (§6.2).
    namespace =
      ref.namespace !== undefined && ref.namespace !== "" ? ref.namespace : request.namespace;
    if (namespace === undefined) {
      return {
        kind: "configError",
        message:
          "failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources",
      };
    }
  }
  const resource = `${type.group}/${type.plural}`;
  let found: KubeObject[];
  if (ref.name !== undefined && ref.name !== "") {
    const one = $.store.get(resource, namespace, ref.name);
    found = one === undefined ? [] : [one];
  } else {
    const selector = ref.selector ?? { matchLabels: {}, matchExpressions: [] };
    found = $.store
      .list(resource, namespace)
      .filter((object) => selectorMatches(selector, meta(object).labels));
  }
  if (found.length > 0) return { kind: "params", objects: found };
  if (ref.parameterNotFoundAction === "Allow") return { kind: "params", objects: [] };
  return {
    kind: "configError",
    message:
      "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
  };
}

/**
 * The configuration error of a policy whose paramKind names no served kind, worded as K14 does,
 * with the group/version/kind written like Go's GroupVersionKind.String().
 */
function paramKindError(types: ResourceRegistry, policy: Policy): string | undefined {
  const { paramKind } = policy;
  if (paramKind === undefined || paramType(types, paramKind) !== undefined) return undefined;
  const [group, version] = paramKind.apiVersion.includes("/")
    ? paramKind.apiVersion.split("/", 2)
    : ["", paramKind.apiVersion];
  return `failed to configure policy: failed to find resource referenced by paramKind: '${group ?? ""}/${version ?? ""}, Kind=${paramKind.kind}'`;
}

/** The AdmissionRequest-shaped map CEL sees as `request` (§6.3). */
function requestVariable(request: AdmissionRequest): Record<string, unknown> {
  const { type } = request;
  const gvk = { group: type.group, version: type.storageVersion, kind: type.kind };
  const gvr = { group: type.group, version: request.version, resource: type.plural };
  const user = request.userInfo ?? DEFAULT_USER;
  return {
    kind: gvk,
    resource: gvr,
    subResource: request.subresource,
    requestKind: { ...gvk, version: request.version },
    requestResource: gvr,
    requestSubResource: request.subresource,
    name: request.name,
    namespace: request.namespace ?? "",
    operation: request.operation,
    userInfo: { username: user.username, uid: user.uid ?? "", groups: user.groups },
    dryRun: request.dryRun === true,
  };
}

/**
 * The answer to a denial (§6.4): `admission.NewForbidden`'s wording with the validation's reason
 * and its code, and the message repeated as the one cause.
 */
export function denialError(request: AdmissionRequest, denial: Denial): KubeStatusError {
  const text =
    denial.binding === undefined
      ? `ValidatingAdmissionPolicy '${denial.policy}' denied request: ${denial.message}`
      : `ValidatingAdmissionPolicy '${denial.policy}' with binding '${denial.binding}' denied request: ${denial.message}`;
  const name = request.name;
  const resource = qualifiedResource(request.type);
  const details: StatusDetails = {};
  if (name !== "") details.name = name;
  if (request.type.group !== "") details.group = request.type.group;
  details.kind = request.type.plural;
  const cause: MessageCause = { message: text };
  details.causes = [cause];
  const message =
    name === ""
      ? `${resource} is forbidden: ${text}`
      : `${resource} "${name}" is forbidden: ${text}`;
  return new KubeStatusError(denial.reason, message, details);
}

/** A failed validation, or an error that `failurePolicy: Fail` turns into one. */
interface Failure {
  message: string;
  reason: ValidationReason;
}

/** What failed for one binding, over every param it resolves to (§6.2: all must pass). */
function bindingFailures(
  $: { store: ObjectStore; types: ResourceRegistry },
  evaluation: {
    policy: Policy;
    binding: Binding;
    request: AdmissionRequest;
    bound: Record<string, unknown>;
  },
): Failure[] {
  const { policy, bound } = evaluation;
  // Errors count only under Fail; under Ignore they let the request through (§6.3).
  const onError = (message: string): Failure[] =>
    policy.failurePolicy === "Fail" ? [{ message, reason: "Invalid" }] : [];
  const params = resolveParams($, evaluation);
  if (params.kind === "configError") return onError(params.message);
  return params.objects.flatMap((param) => {
    const outcome = evaluatePolicy(policy, { ...bound, params: param });
    switch (outcome.kind) {
      case "notMatched":
        return [];
      case "error":
        return onError(outcome.message);
      case "evaluated":
        return outcome.outcomes.flatMap((result) => {
          switch (result.kind) {
            case "failed":
              return [{ message: result.message, reason: result.reason }];
            case "error":
              return onError(result.message);
          }
        });
    }
  });
}

/** The hook; `startKubeSim` installs it first, as a cluster always runs the plugin. */
export function validatingAdmissionPolicyHook($: {
  store: ObjectStore;
  types: ResourceRegistry;
}): AdmissionHook {
  return (request) => {
    // The policy kinds themselves are exempt, so a bad policy cannot lock itself in.
    if (request.type.group === GROUP) return undefined;
    const policies = $.store.list(POLICIES, undefined).map(policyOf);
    if (policies.length === 0) return undefined;
    const bindings = $.store.list(BINDINGS, undefined).map(bindingOf);
    const namespaceObject =
      request.namespace === undefined
        ? undefined
        : $.store.get(`/namespaces`, undefined, request.namespace);
    const bound = {
      object: request.object ?? null,
      oldObject: request.oldObject ?? null,
      request: requestVariable(request),
      namespaceObject: namespaceObject ?? null,
    };
    const warnings: string[] = [];
    let denial: Denial | undefined;
    for (const policy of policies) {
      if (!matches(policy.matchConstraints, request, { namespaceObject, rulesRequired: true })) {
        continue;
      }
      const policyBindings = bindings.filter((b) => b.policyName === policy.name);
      if (policyBindings.length === 0) continue;
      const unknownParamKind = paramKindError($.types, policy);
      if (unknownParamKind !== undefined) {
        // A policy-level configuration error: no binding in the message, and Deny as the action.
        if (policy.failurePolicy === "Fail") {
          denial ??= {
            policy: policy.name,
            binding: undefined,
            message: unknownParamKind,
            reason: "Invalid",
          };
        }
        continue;
      }
      for (const binding of policyBindings) {
        if (
          binding.matchResources !== undefined &&
          !matches(binding.matchResources, request, { namespaceObject, rulesRequired: false })
        ) {
          continue;
        }
        const failures = bindingFailures($, { policy, binding, request, bound });
        for (const failure of failures) {
          for (const action of binding.validationActions) {
            switch (action) {
              case "Deny":
                denial ??= { policy: policy.name, binding: binding.name, ...failure };
                break;
              case "Warn":
                warnings.push(
                  `Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${binding.name}': ${failure.message}`,
                );
                break;
              case "Audit":
                // Audit annotations reach the audit log only; nothing a client can see.
                break;
            }
          }
        }
      }
    }
    const deny = denial === undefined ? undefined : denialError(request, denial);
    if (deny !== undefined) return { warnings, deny };
    return warnings.length > 0 ? { warnings } : undefined;
  };
}
