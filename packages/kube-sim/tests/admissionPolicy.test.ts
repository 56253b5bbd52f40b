/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- client-node's model classes are plain data, and request bodies are object literals as in its own examples. */
import * as k8s from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { MERGE, SANDBOXES, SANDBOX_PATH, failure, sandbox, simFixture } from "./harness.ts";
import { BINDING, POLICY, addPolicy, denied, limits, rawCreate } from "./policyKit.ts";

describe("ValidatingAdmissionPolicy (§6, §9 item 10)", () => {
  it("§6.4/§9.10 a ConfigMap-param policy denies with 422, the exact forbidden message and the one cause", async () => {
    await using f = await simFixture();
    await limits(f, "0");
    await addPolicy(f);
    const raw = await rawCreate(f, sandbox("sb1"));
    expect(raw.status).toBe(422);
    expect(raw.headers.get("content-type")).toBe("application/json");
    expect(raw.text).toBe(denied("sb1", "too many containers"));
    // The same through client-node (§7.1: the raw body rides on ApiException.body).
    const { code, status } = await failure(
      f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb2") }),
    );
    expect(code).toBe(422);
    expect(status.reason).toBe("Invalid");
    // Nothing was stored.
    expect((await f.http(`${SANDBOX_PATH}/sb1`)).status).toBe(404);
    // With a limit the object passes: the param's value decides, not the mere presence of a policy.
    await f.core.patchNamespacedConfigMap(
      { namespace: "default", name: "limits", body: { data: { maxContainers: "1" } } },
      MERGE,
    );
    expect((await rawCreate(f, sandbox("sb1"))).status).toBe(201);
  });

  it("§6.4/§9.10 `reason: Forbidden` answers 403 with reason Forbidden", async () => {
    await using f = await simFixture();
    await limits(f, "0");
    await addPolicy(f, {
      validations: [
        {
          expression:
            "object.spec.podTemplate.spec.containers.size() <= int(params.data.maxContainers)",
          message: "too many containers",
          reason: "Forbidden",
        },
      ],
    });
    const raw = await rawCreate(f, sandbox("sb1"));
    expect(raw.status).toBe(403);
    expect(raw.text).toBe(denied("sb1", "too many containers", { reason: "Forbidden", code: 403 }));
  });

  it("§6.2/§9.10 a missing ConfigMap with `Deny` is a configuration error that denies under Fail", async () => {
    await using f = await simFixture();
    await addPolicy(f);
    const raw = await rawCreate(f, sandbox("sb1"));
    expect(raw.status).toBe(422);
    expect(raw.text).toBe(
      denied(
        "sb1",
        "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
      ),
    );
  });

  it("§6.3/§9.10 under `failurePolicy: Ignore` a missing ConfigMap and an erroring expression are allowed", async () => {
    await using f = await simFixture();
    await addPolicy(f, { failurePolicy: "Ignore" });
    expect((await rawCreate(f, sandbox("sb1"))).status).toBe(201);
    // A param without the key makes the expression fail at run time: still allowed.
    await limits(f, "0", "other");
    await f.core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "limits" }, data: { unrelated: "x" } },
    });
    expect((await rawCreate(f, sandbox("sb2"))).status).toBe(201);
  });

  it("§6.3 an evaluation error under `failurePolicy: Fail` denies (422)", async () => {
    await using f = await simFixture();
    await f.core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "limits" }, data: { unrelated: "x" } },
    });
    await addPolicy(f);
    const raw = await rawCreate(f, sandbox("sb1"));
    expect(raw.status).toBe(422);
    const body = JSON.parse(raw.text) as { message: string };
    expect(body.message).toContain(
      `is forbidden: ValidatingAdmissionPolicy '${POLICY}' with binding '${BINDING}' denied request: expression 'object.spec`,
    );
  });

  it("§6.3/§9.10 `Warn` lets the request through (201) with the Warning header text of K14", async () => {
    await using f = await simFixture();
    await limits(f, "0");
    await addPolicy(f, {}, { validationActions: ["Warn", "Audit"] });
    const raw = await rawCreate(f, sandbox("sb1"));
    expect(raw.status).toBe(201);
    expect(raw.headers.get("warning")).toBe(
      `299 - "Validation failed for ValidatingAdmissionPolicy '${POLICY}' with binding '${BINDING}': too many containers"`,
    );
    // `Audit` alone has no visible effect.
    const api = f.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
    await api.patchValidatingAdmissionPolicyBinding(
      { name: BINDING, body: { spec: { validationActions: ["Audit"] } } },
      MERGE,
    );
    const audited = await rawCreate(f, sandbox("sb2"));
    expect(audited.status).toBe(201);
    expect(audited.headers.get("warning")).toBeNull();
  });

  it("§6.2 `parameterNotFoundAction: Allow` passes; a selector evaluates every matching param", async () => {
    await using f = await simFixture();
    await addPolicy(f, {}, { paramRef: { name: "limits", parameterNotFoundAction: "Allow" } });
    expect((await rawCreate(f, sandbox("sb1"))).status).toBe(201);
    const api = f.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
    await api.patchValidatingAdmissionPolicyBinding(
      {
        name: BINDING,
        body: {
          spec: {
            paramRef: {
              name: null,
              selector: { matchLabels: { limits: "yes" } },
              parameterNotFoundAction: "Deny",
            },
          },
        },
      },
      MERGE,
    );
    for (const [name, max] of [
      ["a", "5"],
      ["b", "0"],
    ] as const) {
      await f.core.createNamespacedConfigMap({
        namespace: "default",
        body: { metadata: { name, labels: { limits: "yes" } }, data: { maxContainers: max } },
      });
    }
    // "b" allows none, so every evaluation must pass and this one fails.
    expect((await rawCreate(f, sandbox("sb2"))).status).toBe(422);
    await f.core.deleteNamespacedConfigMap({ namespace: "default", name: "b" });
    expect((await rawCreate(f, sandbox("sb2"))).status).toBe(201);
  });

  it("§6.3 messageExpression and variables; a multi-line messageExpression falls back to message", async () => {
    await using f = await simFixture();
    await limits(f, "0");
    await addPolicy(f, {
      variables: [
        { name: "count", expression: "object.spec.podTemplate.spec.containers.size()" },
        { name: "max", expression: "int(params.data.maxContainers)" },
      ],
      validations: [
        {
          expression: "variables.count <= variables.max",
          messageExpression:
            "'sandbox ' + object.metadata.name + ' has ' + string(variables.count) + ' containers, max ' + string(variables.max)",
        },
        {
          expression: "variables.count <= variables.max",
          message: "  second  ",
          messageExpression: "'two\\nlines'",
        },
      ],
    });
    const raw = await rawCreate(f, sandbox("sb1"));
    expect(raw.text).toBe(denied("sb1", "sandbox sb1 has 1 containers, max 0"));
    // A multi-line messageExpression result is ignored: the trimmed message is used.
    const api = f.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
    await api.patchValidatingAdmissionPolicy(
      {
        name: POLICY,
        body: {
          spec: {
            validations: [
              {
                expression: "variables.count <= variables.max",
                message: "  second  ",
                messageExpression: "'two\\nlines'",
              },
              { expression: "variables.count > 100" },
            ],
          },
        },
      },
      MERGE,
    );
    expect((await rawCreate(f, sandbox("sb1"))).text).toBe(denied("sb1", "second"));
    await f.core.patchNamespacedConfigMap(
      { namespace: "default", name: "limits", body: { data: { maxContainers: "3" } } },
      MERGE,
    );
    expect((await rawCreate(f, sandbox("sb1"))).text).toBe(
      denied("sb1", "failed expression: variables.count > 100"),
    );
  });

  it("§6.3 a policy on UPDATE sees oldObject (null on CREATE) and request.operation", async () => {
    await using f = await simFixture();
    await addPolicy(
      f,
      {
        paramKind: undefined,
        validations: [
          {
            expression:
              "request.operation != 'UPDATE' || oldObject.metadata.labels.owner == object.metadata.labels.owner",
            message: "owner is immutable",
          },
          {
            expression: "request.operation != 'CREATE' || oldObject == null",
            message: "old on create",
          },
        ],
      },
      { paramRef: undefined },
    );
    const created = await rawCreate(f, {
      ...sandbox("sb1"),
      metadata: { name: "sb1", labels: { owner: "a" } },
    });
    expect(created.status).toBe(201);
    const { code, status } = await failure(
      f.custom.patchNamespacedCustomObject(
        { ...SANDBOXES, name: "sb1", body: { metadata: { labels: { owner: "b" } } } },
        MERGE,
      ),
    );
    expect(code).toBe(422);
    expect(status.message).toBe(
      `sandboxes.agents.x-k8s.io "sb1" is forbidden: ValidatingAdmissionPolicy '${POLICY}' with binding '${BINDING}' denied request: owner is immutable`,
    );
    await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "sb1", body: { metadata: { labels: { owner: "a", other: "x" } } } },
      MERGE,
    );
  });

  it("§6.4 a paramKind naming no served kind is a policy configuration error: denied without a binding name", async () => {
    await using f = await simFixture();
    await limits(f, "5");
    await addPolicy(f, { paramKind: { apiVersion: "v1", kind: "Nothing" } });
    const raw = await rawCreate(f, sandbox("sb1"));
    expect(raw.status).toBe(422);
    const text = `ValidatingAdmissionPolicy '${POLICY}' denied request: failed to configure policy: failed to find resource referenced by paramKind: '/v1, Kind=Nothing'`;
    expect(JSON.parse(raw.text)).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `sandboxes.agents.x-k8s.io "sb1" is forbidden: ${text}`,
      reason: "Invalid",
      details: {
        name: "sb1",
        group: "agents.x-k8s.io",
        kind: "sandboxes",
        causes: [{ message: text }],
      },
      code: 422,
    });
  });

  it("§6.3 namespaceObject is the request's Namespace", async () => {
    await using f = await simFixture();
    await f.core.createNamespace({
      body: { metadata: { name: "team-a", labels: { tier: "gold" } } },
    });
    await f.core.createNamespace({
      body: { metadata: { name: "team-b", labels: { tier: "tin" } } },
    });
    await addPolicy(
      f,
      {
        paramKind: undefined,
        validations: [
          {
            expression: "namespaceObject.metadata.labels.tier == 'gold'",
            messageExpression:
              "'tier ' + namespaceObject.metadata.labels.tier + ' may not run sandboxes'",
          },
        ],
      },
      { paramRef: undefined },
    );
    const create = async (
      namespace: string,
    ): Promise<{ status: number; body: Record<string, unknown> }> =>
      f.http(`/apis/agents.x-k8s.io/v1beta1/namespaces/${namespace}/sandboxes`, {
        method: "POST",
        body: sandbox("sb1"),
      });
    expect((await create("team-a")).status).toBe(201);
    const denial = await create("team-b");
    expect(denial.status).toBe(422);
    expect(denial.body.message).toBe(
      `sandboxes.agents.x-k8s.io "sb1" is forbidden: ValidatingAdmissionPolicy '${POLICY}' with binding '${BINDING}' denied request: tier tin may not run sandboxes`,
    );
  });

  it("§6.3 Warn and Deny bindings together: the denial carries the other binding's Warning header", async () => {
    await using f = await simFixture();
    await limits(f, "0");
    await addPolicy(f);
    const api = f.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
    await api.createValidatingAdmissionPolicyBinding({
      body: {
        metadata: { name: "a-warn-binding" },
        spec: {
          policyName: POLICY,
          validationActions: ["Warn"],
          paramRef: { name: "limits", parameterNotFoundAction: "Deny" },
        },
      },
    });
    const raw = await rawCreate(f, sandbox("sb1"));
    expect(raw.status).toBe(422);
    expect(raw.text).toBe(denied("sb1", "too many containers"));
    expect(raw.headers.get("warning")).toBe(
      `299 - "Validation failed for ValidatingAdmissionPolicy '${POLICY}' with binding 'a-warn-binding': too many containers"`,
    );
  });

  it("§6.3 variables are lazy: one that fails to evaluate fails only the validations that use it", async () => {
    await using f = await simFixture();
    await addPolicy(
      f,
      {
        paramKind: undefined,
        variables: [
          { name: "broken", expression: "object.spec.nope" },
          { name: "name", expression: "object.metadata.name" },
          { name: "loud", expression: "variables.name + '!'" },
        ],
        validations: [{ expression: "variables.loud != 'sb1!'", message: "not sb1" }],
      },
      { paramRef: undefined },
    );
    expect((await rawCreate(f, sandbox("sb2"))).status).toBe(201);
    expect((await rawCreate(f, sandbox("sb1"))).text).toBe(denied("sb1", "not sb1"));
    const api = f.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
    await api.patchValidatingAdmissionPolicy(
      {
        name: POLICY,
        body: { spec: { validations: [{ expression: "variables.broken == 1" }] } },
      },
      MERGE,
    );
    // Using the failing variable is an evaluation error, denied under Fail.
    expect((await rawCreate(f, sandbox("sb3"))).status).toBe(422);
  });
});
