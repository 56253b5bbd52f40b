import { describe, expect, it } from "vitest";
import { KubeClient } from "./kubeClient.ts";
import { KubeError } from "./kubeErrors.ts";
import { SANDBOX, type KubeObject } from "./kubeObjects.ts";
import { retrying } from "./kubeRetry.ts";
import { parseRetryAfter } from "./retryAfter.ts";
import { rejectionOf, simClient, until, type SimClient } from "./tests/simClient.ts";

const TARGET = { kind: SANDBOX, name: "sb1" };

async function withSandbox(f: SimClient): Promise<void> {
  await f.client.create(f.op(), SANDBOX, {
    apiVersion: "agents.x-k8s.io/v1beta1",
    kind: "Sandbox",
    metadata: { name: "sb1" },
    spec: { podTemplate: { spec: { containers: [{ name: "main", image: "busybox" }] } } },
  });
  f.sim.requests.clear();
}

async function timed<T>(work: Promise<T>): Promise<{ ms: number; error: KubeError }> {
  const started = performance.now();
  const error = await rejectionOf(work);
  expect(error).toBeInstanceOf(KubeError);
  return { ms: performance.now() - started, error: error as KubeError };
}

const gets = (f: SimClient) => f.sandboxRequests().filter((entry) => entry.verb === "get");

describe("per-request timeout and one deadline per operation (real time: they bound the transport)", () => {
  it("a silent server: the request is abandoned after requestTimeoutMs, a timeout naming that bound", async () => {
    await using f = await simClient({ requestTimeoutMs: 1_000 });
    await withSandbox(f);
    const hang = f.sim.faults.inject({ verb: "get", effect: { kind: "hang" } });
    const { ms, error } = await timed(f.client.get(f.op(10_000), TARGET));
    expect(error).toMatchObject({ kind: "timeout", timeout: { bound: "request", ms: 1_000 } });
    expect(error.message).toContain("requestTimeoutMs");
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(ms).toBeLessThan(2_500);
    // The connection itself was closed, not merely forgotten.
    await until(() => gets(f)[0]?.aborted === true);
    hang.release();
  });

  it("retries spend the operation's one deadline and never extend it", async () => {
    await using f = await simClient({ requestTimeoutMs: 1_000 });
    await withSandbox(f);
    const hang = f.sim.faults.inject({ verb: "get", effect: { kind: "hang" } });
    const op = f.op(1_300);
    // The first GET times out on its own bound (1 s) and is retried; the second has only ~0.25 s
    // of the operation left, and ends there: ~1.3 s in all, where two fresh bounds would be 2 s.
    const { ms, error } = await timed(retrying(op, () => f.client.get(op, TARGET), 50));
    hang.release();
    expect(error).toMatchObject({ kind: "timeout", timeout: { bound: "operation", ms: 1_300 } });
    expect(ms).toBeGreaterThanOrEqual(1_250);
    expect(ms).toBeLessThan(1_900);
    expect(gets(f)).toHaveLength(2);
    // A spent operation sends nothing more.
    const after = await rejectionOf(f.client.get(op, TARGET));
    expect(after).toMatchObject({ kind: "timeout", timeout: { bound: "operation" } });
    expect(gets(f)).toHaveLength(2);
  });

  it("honours a 429's Retry-After before retrying, inside the deadline", async () => {
    await using f = await simClient();
    await withSandbox(f);
    f.sim.faults.inject({
      verb: "get",
      nth: 1,
      effect: { kind: "status", code: 429, retryAfterSeconds: 1 },
    });
    const op = f.op(5_000);
    const sandbox: KubeObject = await retrying(op, () => f.client.get(op, TARGET), 20);
    expect(sandbox.metadata.name).toBe("sb1");
    const [throttled, served] = gets(f);
    expect([throttled?.status, served?.status]).toEqual([429, 200]);
    const waited = (served?.receivedAt.getTime() ?? 0) - (throttled?.finishedAt?.getTime() ?? 0);
    expect(waited).toBeGreaterThanOrEqual(950);
  });

  it("a Retry-After the deadline cannot cover is not waited: one request, the throttle reported at once", async () => {
    await using f = await simClient();
    await withSandbox(f);
    f.sim.faults.inject({
      verb: "get",
      effect: { kind: "status", code: 429, retryAfterSeconds: 86_400 },
    });
    const op = f.op(5_000);
    const { ms, error } = await timed(retrying(op, () => f.client.get(op, TARGET), 20));
    expect(error).toMatchObject({ kind: "throttled", retryAfterMs: 86_400_000 });
    expect(ms).toBeLessThan(1_000);
    expect(gets(f)).toHaveLength(1);
  });

  it("retries 503s and refused connections on the interval; a final answer is not retried", async () => {
    await using f = await simClient();
    await withSandbox(f);
    f.sim.faults.inject({ verb: "get", nth: 1, times: 3, effect: { kind: "status", code: 503 } });
    const op = f.op(5_000);
    await retrying(op, () => f.client.get(op, TARGET), 20);
    expect(gets(f).map((entry) => entry.status)).toEqual([503, 503, 503, 200]);
    f.sim.requests.clear();
    const missing = await rejectionOf(
      retrying(op, () => f.client.get(op, { kind: SANDBOX, name: "nope" }), 20),
    );
    expect(missing).toMatchObject({ kind: "gone" });
    expect(gets(f)).toHaveLength(1);
  });
});

describe("bounds beyond the answer", () => {
  it("credentials that never come (a hung exec plugin) are bounded by the request timeout, and nothing is sent", async () => {
    await using f = await simClient();
    const hung = f.kubeConfigText.replace(
      /user:\n\s+token: .*/,
      'user:\n      exec: { apiVersion: client.authentication.k8s.io/v1beta1, command: sleep, args: ["3"] }',
    );
    expect(hung).toContain("command: sleep");
    const client = new KubeClient({
      source: { kind: "yaml", text: hung },
      requestTimeoutMs: 1_000,
    });
    const op = client.operation({ label: "t", timeoutMs: 10_000 });
    const { ms, error } = await timed(client.get(op, TARGET));
    expect(error).toMatchObject({ kind: "timeout", timeout: { bound: "request" } });
    expect(ms).toBeLessThan(2_500);
    expect(f.sim.requests.all()).toEqual([]);
  });

  it("a refused connection is retried on the interval until the deadline, then reported as unavailable", async () => {
    const f = await simClient();
    const text = f.kubeConfigText;
    await f[Symbol.asyncDispose]();
    const client = new KubeClient({ source: { kind: "yaml", text } });
    const op = client.operation({ label: "t", timeoutMs: 600 });
    let attempts = 0;
    const { ms, error } = await timed(
      retrying(
        op,
        () => {
          attempts += 1;
          return client.get(op, TARGET);
        },
        100,
      ),
    );
    expect(error).toMatchObject({ kind: "unavailable" });
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(ms).toBeLessThan(1_500);
  });
});

describe("the caller's abort", () => {
  it("an already-aborted signal sends nothing", async () => {
    await using f = await simClient();
    const controller = new AbortController();
    controller.abort(new Error("shutting down"));
    const error = await rejectionOf(f.client.get(f.op(5_000, controller.signal), TARGET));
    expect(error).toMatchObject({ kind: "aborted" });
    expect((error as KubeError).cause).toBe(controller.signal.reason);
    expect(f.sim.requests.all()).toEqual([]);
  });

  it("aborts a request in flight at once, with the caller's reason as the cause", async () => {
    await using f = await simClient();
    await withSandbox(f);
    const hang = f.sim.faults.inject({ verb: "get", effect: { kind: "hang" } });
    const controller = new AbortController();
    const pending = rejectionOf(f.client.get(f.op(20_000, controller.signal), TARGET));
    await until(() => gets(f).length === 1);
    const reason = new Error("the session ended");
    controller.abort(reason);
    const error = await pending;
    expect(error).toMatchObject({ kind: "aborted", cause: reason });
    await until(() => gets(f)[0]?.aborted === true);
    hang.release();
  });

  it("ends a retry's pause at once", async () => {
    await using f = await simClient();
    await withSandbox(f);
    f.sim.faults.inject({
      verb: "get",
      effect: { kind: "status", code: 429, retryAfterSeconds: 3 },
    });
    const controller = new AbortController();
    const op = f.op(10_000, controller.signal);
    const started = performance.now();
    const pending = rejectionOf(retrying(op, () => f.client.get(op, TARGET), 20));
    await until(() => gets(f)[0]?.status === 429);
    controller.abort(new Error("stop"));
    expect(await pending).toMatchObject({ kind: "aborted" });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(gets(f)).toHaveLength(1);
  });
});

describe("parseRetryAfter (RFC 9110)", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  it("reads delta-seconds and HTTP-dates; past is 0; junk is nothing", () => {
    expect(parseRetryAfter("3", now)).toBe(3_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("-5", now)).toBe(0);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("1.5", now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
