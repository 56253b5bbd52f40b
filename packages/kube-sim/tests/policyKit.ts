/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- client-node's model classes are plain data, and request bodies are object literals as in its own examples. */
/** Policies, params and the exact denial bodies shared by the ValidatingAdmissionPolicy tests (§6). */
import * as k8s from "@kubernetes/client-node";
import type { Fixture } from "./harness.ts";
import { SANDBOX_PATH } from "./harness.ts";

export const POLICY = "sandbox-limits";
export const BINDING = "sandbox-limits-binding";

export const SANDBOX_RULES = {
  resourceRules: [
    {
      apiGroups: ["agents.x-k8s.io"],
      apiVersions: ["*"],
      operations: ["CREATE", "UPDATE"],
      resources: ["sandboxes"],
    },
  ],
};

/** A policy on sandboxes with a ConfigMap paramKind; `spec` overrides any part of it. */
export async function addPolicy(
  f: Fixture,
  spec: Partial<k8s.V1ValidatingAdmissionPolicySpec> = {},
  binding: Partial<k8s.V1ValidatingAdmissionPolicyBindingSpec> = {},
): Promise<void> {
  const api = f.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  await api.createValidatingAdmissionPolicy({
    body: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: POLICY },
      spec: {
        failurePolicy: "Fail",
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConstraints: SANDBOX_RULES,
        validations: [
          {
            expression:
              "object.spec.podTemplate.spec.containers.size() <= int(params.data.maxContainers)",
            message: "too many containers",
          },
        ],
        ...spec,
      },
    },
  });
  await api.createValidatingAdmissionPolicyBinding({
    body: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: BINDING },
      spec: {
        policyName: POLICY,
        validationActions: ["Deny"],
        paramRef: { name: "limits", parameterNotFoundAction: "Deny" },
        ...binding,
      },
    },
  });
}

/** The ConfigMap the policies read their limit from. */
export async function limits(f: Fixture, maxContainers: string, name = "limits"): Promise<void> {
  await f.core.createNamespacedConfigMap({
    namespace: "default",
    body: { metadata: { name }, data: { maxContainers } },
  });
}

/** The exact §6.4 body for a denial of sandbox `name`; `answer` is the reason and its code. */
export function denied(
  name: string,
  message: string,
  answer: { reason: string; code: number } = { reason: "Invalid", code: 422 },
): string {
  const { reason, code } = answer;
  const text = `ValidatingAdmissionPolicy '${POLICY}' with binding '${BINDING}' denied request: ${message}`;
  return JSON.stringify({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `sandboxes.agents.x-k8s.io "${name}" is forbidden: ${text}`,
    reason,
    details: {
      name,
      group: "agents.x-k8s.io",
      kind: "sandboxes",
      causes: [{ message: text }],
    },
    code,
  });
}

/** A raw POST of a Sandbox, for the exact body and headers of the answer. */
export async function rawCreate(
  f: Fixture,
  body: unknown,
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`${f.sim.url}${SANDBOX_PATH}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}
