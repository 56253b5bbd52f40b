import { KubeStatusError, type AdmissionHook } from "@berth/kube-sim";
import { describe, expect, it } from "vitest";
import { backendErrorCodes } from "../../spawner/backend.ts";
import { backendCodeOf, toBackendError } from "./kubeBackendErrors.ts";
import { KubeClient } from "./kubeClient.ts";
import { KubeError, kubeErrorKinds, normalizeKubeError } from "./kubeErrors.ts";
import { SANDBOX, type CustomKind, type KubeObject } from "./kubeObjects.ts";
import { AllocationRefusedError } from "./allocationErrors.ts";
import { rejectionOf, SECRET_TOKEN, simClient } from "./tests/simClient.ts";

function sandbox(name: string): KubeObject {
  return {
    apiVersion: "agents.x-k8s.io/v1beta1",
    kind: "Sandbox",
    metadata: { name },
    spec: { podTemplate: { spec: { containers: [{ name: "main", image: "busybox" }] } } },
  };
}

/** Denies every write to sandboxes with this Status, as an admission plugin would. */
function denyWrites(make: () => KubeStatusError): AdmissionHook {
  return (request) => (request.type.plural === "sandboxes" ? { deny: make() } : undefined);
}

async function failureOf(promise: Promise<unknown>): Promise<KubeError> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(KubeError);
  return error as KubeError;
}

describe("normalizeKubeError: every answer becomes one kind", () => {
  it("404 naming the object is gone; 404 for a kind or namespace the cluster lacks is not_served", async () => {
    await using f = await simClient();
    const gone = await failureOf(f.client.get(f.op(), { kind: SANDBOX, name: "nope" }));
    expect(gone).toMatchObject({ kind: "gone", status: 404, reason: "NotFound" });
    const unserved: CustomKind = { ...SANDBOX, plural: "sandboxez" };
    const noKind = await failureOf(f.client.get(f.op(), { kind: unserved, name: "nope" }));
    expect(noKind).toMatchObject({ kind: "not_served", status: 404 });
    expect(noKind.message).toContain("is agent-sandbox installed");
    const elsewhere = new KubeClient({
      source: { kind: "yaml", text: f.kubeConfigText },
      namespace: "no-such-namespace",
    });
    const noNamespace = await failureOf(elsewhere.create(f.op(), SANDBOX, sandbox("sb1")));
    expect(noNamespace).toMatchObject({ kind: "not_served", status: 404 });
    expect(noNamespace.message).toContain("namespace no-such-namespace");
  });

  it("409 AlreadyExists on a create is a conflict", async () => {
    await using f = await simClient();
    await f.client.create(f.op(), SANDBOX, sandbox("sb1"));
    const error = await failureOf(f.client.create(f.op(), SANDBOX, sandbox("sb1")));
    expect(error).toMatchObject({ kind: "conflict", status: 409, reason: "AlreadyExists" });
  });

  it("422 is patch_not_applied on a JSON Patch (a failed test), invalid on a merge patch or a create", async () => {
    await using f = await simClient();
    await f.client.create(f.op(), SANDBOX, sandbox("sb1"));
    const target = { kind: SANDBOX, name: "sb1" };
    const failedTest = await failureOf(
      f.client.patch(f.op(), target, {
        type: "json",
        operations: [{ op: "test", path: "/metadata/name", value: "other" }],
      }),
    );
    expect(failedTest).toMatchObject({ kind: "patch_not_applied", status: 422 });
    const badMerge = await failureOf(
      f.client.patch(f.op(), target, {
        type: "merge",
        body: { spec: { operatingMode: "Asleep" } },
      }),
    );
    expect(badMerge).toMatchObject({ kind: "invalid", status: 422, reason: "Invalid" });
  });

  it("403 is credential, except a quota's 403 which is capacity; 401 credential; 410 gone", async () => {
    const quota = (): KubeStatusError =>
      new KubeStatusError(
        "Forbidden",
        'sandboxes "sb1" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=10, limited: pods=10',
        {},
      );
    const cases: [() => KubeStatusError, string, number][] = [
      [() => new KubeStatusError("Forbidden", "user cannot create", {}), "credential", 403],
      [quota, "capacity", 403],
      [() => new KubeStatusError("Unauthorized", "Unauthorized", {}), "credential", 401],
      [() => new KubeStatusError("Expired", "too old resource version", {}), "gone", 410],
    ];
    for (const [make, kind, status] of cases) {
      await using f = await simClient({ sim: { admission: [denyWrites(make)] } });
      const error = await failureOf(f.client.create(f.op(), SANDBOX, sandbox("sb1")));
      expect(error).toMatchObject({ kind, status });
      expect(error.message).not.toContain(SECRET_TOKEN);
      expect(error.message).not.toContain("limited: pods=10");
    }
  });

  it("429 and a 503 with Retry-After are throttled (with the wait); other 5xx are unavailable", async () => {
    await using f = await simClient();
    await f.client.create(f.op(), SANDBOX, sandbox("sb1"));
    const get = (): Promise<KubeObject> => f.client.get(f.op(), { kind: SANDBOX, name: "sb1" });
    const fault = (code: 429 | 500 | 503, retryAfterSeconds?: number) =>
      f.sim.faults.inject({
        verb: "get",
        nth: 1,
        effect: {
          kind: "status",
          code,
          ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
        },
      });
    fault(429, 7);
    expect(await failureOf(get())).toMatchObject({
      kind: "throttled",
      status: 429,
      retryAfterMs: 7000,
    });
    fault(503, 2);
    expect(await failureOf(get())).toMatchObject({
      kind: "throttled",
      status: 503,
      retryAfterMs: 2000,
    });
    fault(503);
    expect(await failureOf(get())).toMatchObject({
      kind: "unavailable",
      status: 503,
      retryAfterMs: undefined,
    });
    fault(500);
    expect(await failureOf(get())).toMatchObject({ kind: "unavailable", status: 500 });
  });

  it("a refused connection is unavailable, naming the errno and not the server's answer", async () => {
    const f = await simClient();
    const text = f.kubeConfigText;
    await f[Symbol.asyncDispose]();
    const client = new KubeClient({ source: { kind: "yaml", text } });
    const error = await failureOf(
      client.get(client.operation({ label: "t", timeoutMs: 5000 }), { kind: SANDBOX, name: "x" }),
    );
    expect(error).toMatchObject({ kind: "unavailable", status: undefined });
    expect(error.message).toContain("ECONNREFUSED");
  });

  it("anything else thrown is internal, and a KubeError passes through unchanged", () => {
    const request = {
      verb: "get",
      resource: "sandboxes",
      namespace: "default",
      name: "x",
    } as const;
    const internal = normalizeKubeError(new TypeError("boom"), { request });
    expect(internal.kind).toBe("internal");
    expect(normalizeKubeError(internal, { request })).toBe(internal);
  });
});

describe("toBackendError: the port's codes", () => {
  it("maps every kind to a port code, capacity reachable from a quota and a throttle", () => {
    const codes = kubeErrorKinds.map((kind) => backendCodeOf(kind));
    for (const code of codes) expect(backendErrorCodes).toContain(code);
    expect(backendCodeOf("capacity")).toBe("capacity");
    expect(backendCodeOf("throttled")).toBe("capacity");
    expect(backendCodeOf("gone")).toBe("not_found");
    // A missing CRD or namespace is configuration, never a lost box.
    expect(backendCodeOf("not_served")).toBe("invalid");
  });

  it("a real 429 reaches the port as capacity, with the operation named", async () => {
    await using f = await simClient();
    f.sim.faults.inject({ verb: "create", effect: { kind: "status", code: 429 } });
    const error = await rejectionOf(f.client.create(f.op(), SANDBOX, sandbox("sb1")));
    const mapped = toBackendError(error, { operation: "create", instanceId: "berth-x" });
    expect(mapped).toMatchObject({ code: "capacity", instanceId: "berth-x" });
    expect(mapped.message).toMatch(
      /^create berth-x: kubernetes create sandboxes in default -> 429/,
    );
    expect(mapped.cause).toBe(error);
  });

  it("an allocation refusal is invalid; an unknown throw internal", () => {
    const refused = new AllocationRefusedError({
      sandboxName: "berth-a-b",
      field: "allocation-scope",
      expected: "x",
      actual: "y",
    });
    expect(toBackendError(refused, { operation: "create" }).code).toBe("invalid");
    expect(toBackendError(new Error("?"), { operation: "create" }).code).toBe("internal");
  });
});
