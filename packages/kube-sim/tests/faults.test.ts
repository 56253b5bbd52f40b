import * as k8s from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import type { Fixture } from "./harness.ts";
import { MERGE, SANDBOXES, SANDBOX_PATH, failure, sandbox, simFixture } from "./harness.ts";

/** Polls a condition on the event loop (no fixed sleeps); fails after `ms`. */
async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function raw(
  f: Fixture,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`${f.sim.url}${path}`, init);
  return { status: response.status, text: await response.text(), headers: response.headers };
}

function labelPatch(f: Fixture, value: string): Promise<unknown> {
  return f.custom.patchNamespacedCustomObject(
    { ...SANDBOXES, name: "sb1", body: { metadata: { labels: { n: value } } } },
    MERGE,
  );
}

describe("fault injection: status answers (K1 templates)", () => {
  it("a 409 on the 2nd patch only: the Conflict text of §3, then normal service", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb1") });
    const fault = f.sim.faults.inject({
      verb: "patch",
      resource: "sandboxes",
      nth: 2,
      effect: { kind: "status", code: 409 },
    });
    await labelPatch(f, "1");
    const { code, status } = await failure(labelPatch(f, "2"));
    expect(code).toBe(409);
    expect(status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'Operation cannot be fulfilled on sandboxes.agents.x-k8s.io "sb1": the object has been modified; please apply your changes to the latest version and try again',
      reason: "Conflict",
      details: { name: "sb1", group: "agents.x-k8s.io", kind: "sandboxes" },
      code: 409,
    });
    await labelPatch(f, "3");
    expect(fault.matched).toBe(3);
    expect(fault.injected).toBe(1);
    // The injected answer did not reach storage: label "2" was never written.
    const patches = f.sim.requests.filter({ verb: "patch", resource: "sandboxes" });
    expect(patches.map((entry) => [entry.status, entry.fault?.kind])).toEqual([
      [200, undefined],
      [409, "status"],
      [200, undefined],
    ]);
    // A status fault answers before the body is read: the log says so rather than guess it.
    expect(patches.map((entry) => entry.body)).toEqual([
      JSON.stringify({ metadata: { labels: { n: "1" } } }),
      undefined,
      JSON.stringify({ metadata: { labels: { n: "3" } } }),
    ]);
  });

  it("429 carries Retry-After and details.retryAfterSeconds, surfaced on client-node's ApiException (§7.1)", async () => {
    await using f = await simFixture();
    f.sim.faults.inject({
      verb: "list",
      resource: "configmaps",
      effect: { kind: "status", code: 429, retryAfterSeconds: 3 },
    });
    try {
      await f.core.listNamespacedConfigMap({ namespace: "default" });
      expect.unreachable("the list should fail");
    } catch (error) {
      if (!(error instanceof k8s.ApiException)) throw error;
      expect(error.code).toBe(429);
      expect((error.headers as Record<string, string>)["retry-after"]).toBe("3");
      expect(JSON.parse(String(error.body))).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Too many requests, please try again later.",
        reason: "TooManyRequests",
        details: { retryAfterSeconds: 3 },
        code: 429,
      });
    }
    // Other resources are untouched.
    await f.core.listNamespacedPod({ namespace: "default" });
  });

  it("500, 503 and 422 answer with their K1 bodies and Content-Type", async () => {
    await using f = await simFixture();
    const cases = [
      [
        500,
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: injected fault","reason":"InternalError","details":{"causes":[{"message":"injected fault"}]},"code":500}',
      ],
      [
        503,
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server is currently unable to handle the request","reason":"ServiceUnavailable","code":503}',
      ],
      [
        422,
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server rejected our request due to an error in our request","reason":"Invalid","details":{},"code":422}',
      ],
    ] as const;
    for (const [code, body] of cases) {
      const fault = f.sim.faults.inject({ verb: "create", effect: { kind: "status", code } });
      const res = await raw(f, SANDBOX_PATH, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(sandbox("sb1")),
      });
      expect(res.status).toBe(code);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.text).toBe(body);
      fault.remove();
    }
    expect((await raw(f, `${SANDBOX_PATH}/sb1`)).status).toBe(404);
  });
});

describe("fault injection: selection and determinism", () => {
  async function pattern(seed: number): Promise<number[]> {
    await using f = await simFixture({ faultSeed: seed });
    f.sim.faults.inject({ verb: "get", rate: 0.5, effect: { kind: "status", code: 503 } });
    const codes: number[] = [];
    for (let i = 0; i < 24; i++) codes.push((await raw(f, "/api/v1/namespaces/default")).status);
    return codes;
  }

  it("a rate draws from a seeded RNG: the same seed repeats the same calls exactly", async () => {
    const first = await pattern(7);
    expect(await pattern(7)).toEqual(first);
    expect(first.filter((code) => code === 503).length).toBeGreaterThan(0);
    expect(first.filter((code) => code === 200).length).toBeGreaterThan(0);
    expect(await pattern(8)).not.toEqual(first);
  });

  it("namespace, name and times narrow a rule; remove() stops it", async () => {
    await using f = await simFixture();
    const fault = f.sim.faults.inject({
      verb: ["get", "list"],
      namespace: "kube-system",
      times: 2,
      effect: { kind: "status", code: 500 },
    });
    expect((await raw(f, "/api/v1/namespaces/default/configmaps")).status).toBe(200);
    expect((await raw(f, "/api/v1/namespaces/kube-system/configmaps")).status).toBe(500);
    expect((await raw(f, "/api/v1/namespaces/kube-system/configmaps/x")).status).toBe(500);
    expect((await raw(f, "/api/v1/namespaces/kube-system/configmaps")).status).toBe(200);
    const named = f.sim.faults.inject({ name: "sb9", effect: { kind: "status", code: 503 } });
    expect((await raw(f, `${SANDBOX_PATH}/sb8`)).status).toBe(404);
    expect((await raw(f, `${SANDBOX_PATH}/sb9`)).status).toBe(503);
    named.remove();
    expect((await raw(f, `${SANDBOX_PATH}/sb9`)).status).toBe(404);
    expect(fault.injected).toBe(2);
  });
});

describe("fault injection: latency and hangs (real time)", () => {
  it("latency holds the request: a slow get started first finishes after a fast one started later", async () => {
    await using f = await simFixture();
    f.sim.faults.inject({ verb: "get", name: "slow", effect: { kind: "latency", ms: 150 } });
    const order: string[] = [];
    const started = Date.now();
    const slow = raw(f, "/api/v1/namespaces/default/configmaps/slow").then((res) => {
      order.push("slow");
      return { res, elapsed: Date.now() - started };
    });
    await until(() => f.sim.requests.filter({ name: "slow" }).length === 1);
    await raw(f, "/api/v1/namespaces/default/configmaps/fast");
    order.push("fast");
    const { res, elapsed } = await slow;
    expect(order).toEqual(["fast", "slow"]);
    expect(res.status).toBe(404); // then it ran as normal
    expect(elapsed).toBeGreaterThanOrEqual(140);
  });

  it("a hung request stays open while others are served, and proceeds when released", async () => {
    await using f = await simFixture();
    const hang = f.sim.faults.inject({ verb: "create", effect: { kind: "hang" } });
    const hung = f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb1") });
    await until(() => f.sim.requests.filter({ verb: "create" }).length === 1);
    await f.core.listNamespacedConfigMap({ namespace: "default" });
    expect(f.sim.requests.last({ verb: "create" })?.status).toBeUndefined();
    hang.remove();
    hang.release();
    await hung;
    expect(f.sim.requests.last({ verb: "create" })?.status).toBe(201);
  });

  it("a hung request ends when the client aborts, and on close()", async () => {
    const f = await simFixture();
    f.sim.faults.inject({ verb: "get", effect: { kind: "hang" } });
    const controller = new AbortController();
    const aborted = fetch(`${f.sim.url}/api/v1/namespaces/default`, {
      signal: controller.signal,
    });
    await until(() => f.sim.requests.filter({ verb: "get" }).length === 1);
    controller.abort();
    await expect(aborted).rejects.toThrow();
    await until(() => f.sim.requests.last({ verb: "get" })?.aborted === true);
    const open = fetch(`${f.sim.url}/api/v1/namespaces/kube-system`);
    await until(() => f.sim.requests.filter({ verb: "get" }).length === 2);
    await f.sim.close();
    await expect(open).rejects.toThrow();
  });
});

describe("fault injection: dropped watches", () => {
  it("a dropped watch ends mid-way; an informer re-watches, relists after a 410, and recovers", async () => {
    await using f = await simFixture();
    // The first watch drops in place of its 2nd event; the 2nd watch is held so the test can
    // compact history first, which makes the informer's resume point too old (410 → relist).
    f.sim.faults.inject({ verb: "watch", nth: 1, effect: { kind: "dropWatch", afterEvents: 1 } });
    const held = f.sim.faults.inject({ verb: "watch", nth: 2, effect: { kind: "hang" } });
    const path = "/apis/agents.x-k8s.io/v1beta1/namespaces/default/sandboxes";
    const informer = k8s.makeInformer(
      f.kc,
      path,
      () => f.custom.listNamespacedCustomObject(SANDBOXES) as never,
    );
    const names = (): string[] =>
      informer
        .list()
        .map((object) => object.metadata?.name ?? "")
        .sort();
    await informer.start();
    try {
      await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb1") });
      await until(() => names().includes("sb1"));
      await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb2") });
      await until(() => f.sim.requests.filter({ verb: "watch" }).length === 2);
      f.sim.compact();
      await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb3") });
      held.release();
      await until(() => names().join() === "sb1,sb2,sb3");
      const log = f.sim.requests.filter(
        (entry) => entry.resource === "sandboxes" && entry.method === "GET",
      );
      expect(log.map((entry) => entry.verb).slice(0, 4)).toEqual([
        "list",
        "watch",
        "watch",
        "list",
      ]);
      expect(log[1]?.fault?.kind).toBe("dropWatch");
    } finally {
      await informer.stop();
    }
  });
});

describe("fault injection: watch requests", () => {
  it("§4.8 a 503 on a watch reaches client-node's Watch as an error with statusCode", async () => {
    await using f = await simFixture();
    f.sim.faults.inject({ verb: "watch", effect: { kind: "status", code: 503 } });
    const ended = await new Promise<unknown>((resolve, reject) => {
      new k8s.Watch(f.kc).watch(SANDBOX_PATH, {}, () => undefined, resolve).then(undefined, reject);
    });
    expect(ended).toBeInstanceOf(Error);
    expect((ended as { statusCode?: number }).statusCode).toBe(503);
    expect(f.sim.requests.last({ verb: "watch" })?.status).toBe(503);
  });
});

describe("the request log", () => {
  it("records verb, resource, content type, body, fieldManager, dryRun and status; clear() empties it", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("sb1") });
    // Spaced on purpose: the log keeps the bytes as sent, not a re-serialization.
    const patchBody = '{ "metadata": { "labels": { "a": "b" } } }';
    await raw(f, `${SANDBOX_PATH}/sb1?fieldManager=berth&dryRun=All`, {
      method: "PATCH",
      headers: { "Content-Type": "application/merge-patch+json" },
      body: patchBody,
    });
    await raw(f, "/apis/agents.x-k8s.io/v1beta1/namespaces/default/nothings");
    const patch = f.sim.requests.last({ verb: "patch" });
    expect(patch).toMatchObject({
      method: "PATCH",
      path: `${SANDBOX_PATH}/sb1`,
      query: { fieldManager: "berth", dryRun: "All" },
      group: "agents.x-k8s.io",
      version: "v1beta1",
      resource: "sandboxes",
      namespace: "default",
      name: "sb1",
      contentType: "application/merge-patch+json",
      body: patchBody,
      fieldManager: "berth",
      dryRun: true,
      status: 200,
      aborted: false,
      fault: undefined,
    });
    expect(patch?.finishedAt?.getTime()).toBeGreaterThanOrEqual(patch?.receivedAt.getTime() ?? 0);
    expect(f.sim.requests.last()).toMatchObject({
      verb: "list",
      resource: undefined,
      status: 404,
      body: "",
    });
    const create = f.sim.requests.last({ verb: "create" });
    expect(JSON.parse(create?.body ?? "")).toEqual(sandbox("sb1"));
    expect(create?.seq).toBeLessThan(patch?.seq ?? 0);
    f.sim.requests.clear();
    expect(f.sim.requests.all()).toEqual([]);
  });

  it("is bounded: the oldest entries go first", async () => {
    await using f = await simFixture({ requestLogLimit: 3 });
    for (const name of ["a", "b", "c", "d"]) {
      await raw(f, `/api/v1/namespaces/default/configmaps/${name}`);
    }
    expect(f.sim.requests.all().map((entry) => entry.name)).toEqual(["b", "c", "d"]);
  });
});
