/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- client-node's model classes are plain data, and request bodies are object literals as in its own examples. */
import * as k8s from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { MERGE, SANDBOXES, SANDBOX_PATH, failure, sandbox, simFixture } from "./harness.ts";
import { BINDING, POLICY, SANDBOX_RULES, addPolicy, rawCreate } from "./policyKit.ts";

describe("ValidatingAdmissionPolicy: what a policy matches (§6.1, §6.3)", () => {
  it("§6.1 matchConstraints scope the policy: configmaps and sandboxes/status are not affected", async () => {
    await using f = await simFixture();
    expect((await rawCreate(f, sandbox("sb0"))).status).toBe(201);
    await addPolicy(
      f,
      { paramKind: undefined, validations: [{ expression: "false", message: "never" }] },
      { paramRef: undefined },
    );
    expect((await rawCreate(f, sandbox("sb1"))).status).toBe(422);
    // Another resource passes.
    await f.core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "free" }, data: {} },
    });
    // A rule naming `sandboxes` does not match `sandboxes/status` (§6.1).
    await f.custom.patchNamespacedCustomObjectStatus(
      { ...SANDBOXES, name: "sb0", body: { status: { replicas: 0 } } },
      MERGE,
    );
    // The main endpoint's UPDATE is matched.
    const { code } = await failure(
      f.custom.patchNamespacedCustomObject(
        { ...SANDBOXES, name: "sb0", body: { metadata: { labels: { a: "b" } } } },
        MERGE,
      ),
    );
    expect(code).toBe(422);
    // DELETE is not among the rule's operations.
    await f.custom.deleteNamespacedCustomObject({ ...SANDBOXES, name: "sb0" });
  });

  it("§6.1 namespaceSelector, objectSelector and binding matchResources narrow the match", async () => {
    await using f = await simFixture();
    await f.core.createNamespace({
      body: { metadata: { name: "locked", labels: { lock: "on" } } },
    });
    await addPolicy(
      f,
      {
        paramKind: undefined,
        matchConstraints: { ...SANDBOX_RULES, namespaceSelector: { matchLabels: { lock: "on" } } },
        validations: [{ expression: "false", message: "locked" }],
      },
      {
        paramRef: undefined,
        matchResources: {
          objectSelector: { matchExpressions: [{ key: "exempt", operator: "DoesNotExist" }] },
        },
      },
    );
    expect((await rawCreate(f, sandbox("sb1"))).status).toBe(201);
    const locked = async (body: unknown): Promise<number> =>
      (
        await fetch(`${f.sim.url}/apis/agents.x-k8s.io/v1beta1/namespaces/locked/sandboxes`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
        })
      ).status;
    expect(await locked(sandbox("sb1"))).toBe(422);
    expect(
      await locked({ ...sandbox("sb2"), metadata: { name: "sb2", labels: { exempt: "1" } } }),
    ).toBe(201);
  });

  it("§6.1 wildcard rules with excludeResourceRules: everything but the excluded resource is matched", async () => {
    await using f = await simFixture();
    await addPolicy(
      f,
      {
        paramKind: undefined,
        matchConstraints: {
          resourceRules: [
            { apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] },
          ],
          excludeResourceRules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["configmaps"] },
          ],
        },
        validations: [{ expression: "false", message: "no" }],
      },
      { paramRef: undefined },
    );
    await f.core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "ok" } },
    });
    expect((await rawCreate(f, sandbox("sb1"))).status).toBe(422);
    const { code, status } = await failure(
      f.core.createNamespacedPod({
        namespace: "default",
        body: { metadata: { name: "p1" }, spec: { containers: [{ name: "c", image: "busybox" }] } },
      }),
    );
    expect(code).toBe(422);
    // Core resources are named without a group, and details has no group key (§3).
    expect(status.message).toBe(
      `pods "p1" is forbidden: ValidatingAdmissionPolicy '${POLICY}' with binding '${BINDING}' denied request: no`,
    );
    expect(status.details).toEqual({
      name: "p1",
      kind: "pods",
      causes: [
        {
          message: `ValidatingAdmissionPolicy '${POLICY}' with binding '${BINDING}' denied request: no`,
        },
      ],
    });
  });

  it("§6.3 matchConditions see request.userInfo: an in-process writer can be excluded by username", async () => {
    await using f = await simFixture();
    await addPolicy(
      f,
      {
        paramKind: undefined,
        matchConditions: [
          { name: "not-the-controller", expression: "request.userInfo.username != 'controller'" },
        ],
        validations: [{ expression: "false", message: "humans may not" }],
      },
      { paramRef: undefined },
    );
    // HTTP requests are made as kubernetes-admin (authentication is not simulated).
    expect((await rawCreate(f, sandbox("sb1"))).status).toBe(422);
    const types = f.sim.types.types;
    const type = types.find((t) => t.plural === "sandboxes");
    if (type === undefined) throw new Error("sandboxes are served");
    f.sim.registry.create({ type, version: "v1beta1", namespace: "default" }, sandbox("sb1"), {
      warnings: [],
      fieldValidation: "Strict",
      userInfo: { username: "controller", groups: ["system:authenticated"] },
    });
    expect((await f.http(`${SANDBOX_PATH}/sb1`)).status).toBe(200);
    // A matchCondition that errors is an error: under Fail the request is denied.
    const api = f.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
    await api.patchValidatingAdmissionPolicy(
      {
        name: POLICY,
        body: { spec: { matchConditions: [{ name: "broken", expression: "object.nope == 1" }] } },
      },
      MERGE,
    );
    expect((await rawCreate(f, sandbox("sb2"))).status).toBe(422);
  });

  it("§6.1 subresource patterns and scope: `sandboxes/status`, `*/*`, and `scope: Cluster`", async () => {
    await using f = await simFixture();
    expect((await rawCreate(f, sandbox("sb0"))).status).toBe(201);
    const rule = (resources: string[], scope = "*"): k8s.V1MatchResources => ({
      resourceRules: [
        { apiGroups: ["*"], apiVersions: ["*"], operations: ["UPDATE"], resources, scope },
      ],
    });
    await addPolicy(
      f,
      {
        paramKind: undefined,
        matchConstraints: rule(["sandboxes/status"]),
        validations: [{ expression: "false", message: "status is frozen" }],
      },
      { paramRef: undefined },
    );
    const statusWrite = (): Promise<unknown> =>
      f.custom.patchNamespacedCustomObjectStatus(
        { ...SANDBOXES, name: "sb0", body: { status: { replicas: 1 } } },
        MERGE,
      );
    let writes = 0;
    // Each label write changes the object, so none is a no-op that admission could skip.
    const labelWrite = (): Promise<unknown> =>
      f.custom.patchNamespacedCustomObject(
        { ...SANDBOXES, name: "sb0", body: { metadata: { labels: { x: String(++writes) } } } },
        MERGE,
      );
    expect((await failure(statusWrite())).code).toBe(422);
    await labelWrite();
    const api = f.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
    const setRule = (match: k8s.V1MatchResources): Promise<unknown> =>
      api.patchValidatingAdmissionPolicy(
        { name: POLICY, body: { spec: { matchConstraints: match } } },
        MERGE,
      );
    await setRule(rule(["*/*"]));
    expect((await failure(statusWrite())).code).toBe(422);
    expect((await failure(labelWrite())).code).toBe(422);
    // Sandboxes are namespaced, so a Cluster-scoped rule does not match them.
    await setRule(rule(["*/*"], "Cluster"));
    await labelWrite();
  });
});
