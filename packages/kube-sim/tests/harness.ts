/**
 * Test fixtures: a simulator on a random port, client-node 1.4.0 clients configured for it, and a
 * raw HTTP helper for asserting exact bodies and headers.
 */
import * as k8s from "@kubernetes/client-node";
import type { KubeSim, KubeSimOptions } from "../src/index.ts";
import { startKubeSim } from "../src/index.ts";

export const SANDBOXES = {
  group: "agents.x-k8s.io",
  version: "v1beta1",
  namespace: "default",
  plural: "sandboxes",
} as const;

export const CLAIMS = {
  group: "extensions.agents.x-k8s.io",
  version: "v1beta1",
  namespace: "default",
  plural: "sandboxclaims",
} as const;

export const SANDBOX_PATH = "/apis/agents.x-k8s.io/v1beta1/namespaces/default/sandboxes";

export const MERGE = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);
export const JSON_PATCH = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.JsonPatch);

/** A valid v1beta1 Sandbox body. */
export function sandbox(
  name: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: "agents.x-k8s.io/v1beta1",
    kind: "Sandbox",
    metadata: { name },
    spec: { podTemplate: { spec: { containers: [{ name: "main", image: "busybox" }] } }, ...extra },
  };
}

export interface Fixture extends AsyncDisposable {
  sim: KubeSim;
  kc: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  custom: k8s.CustomObjectsApi;
  objects: k8s.KubernetesObjectApi;
  /** Raw HTTP against the simulator: status, headers and the parsed JSON body. */
  http: (
    path: string,
    init?: { method?: string; body?: unknown; contentType?: string },
  ) => Promise<{ status: number; headers: Headers; body: Record<string, unknown> }>;
}

/** A JSON object as the API answers it. */
export type Obj = Record<string, unknown>;

/** Creates `sandbox(name)` through the client and answers the stored object. */
export async function createdSandbox(f: Fixture, name = "sb1"): Promise<Obj> {
  return (await f.custom.createNamespacedCustomObject({
    ...SANDBOXES,
    body: sandbox(name),
  })) as Obj;
}

export async function simFixture(options: KubeSimOptions = {}): Promise<Fixture> {
  const sim = await startKubeSim(options);
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeConfig());
  return {
    sim,
    kc,
    core: kc.makeApiClient(k8s.CoreV1Api),
    custom: kc.makeApiClient(k8s.CustomObjectsApi),
    objects: k8s.KubernetesObjectApi.makeApiClient(kc),
    http: async (path, init = {}) => {
      const body =
        init.body === undefined
          ? undefined
          : typeof init.body === "string"
            ? init.body
            : JSON.stringify(init.body);
      const response = await fetch(`${sim.url}${path}`, {
        method: init.method ?? "GET",
        headers: { "Content-Type": init.contentType ?? "application/json" },
        ...(body === undefined ? {} : { body }),
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: JSON.parse(text) as Record<string, unknown>,
      };
    },
    [Symbol.asyncDispose]: () => sim.close(),
  };
}

/** The parsed Status of a failed client-node call (ApiException.body is the raw text, §7.1). */
export async function failure(
  call: Promise<unknown>,
): Promise<{ code: number; status: Record<string, unknown> }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof k8s.ApiException) {
      const body: unknown = error.body;
      return { code: error.code, status: JSON.parse(String(body)) as Record<string, unknown> };
    }
    throw error;
  }
  throw new Error("expected the call to fail");
}

export function metadataOf(object: unknown): Record<string, unknown> {
  return (object as { metadata: Record<string, unknown> }).metadata;
}

/** Collects watch events until `until` returns true for the list so far. */
export async function watchUntil(
  kc: k8s.KubeConfig,
  request: { path: string; query: Record<string, string | number | boolean | undefined> },
  until: (events: { type: string; object: Record<string, unknown> }[]) => boolean,
): Promise<{ events: { type: string; object: Record<string, unknown> }[]; ended: boolean }> {
  const events: { type: string; object: Record<string, unknown> }[] = [];
  let ended = false;
  let controller: AbortController | undefined;
  await new Promise<void>((resolve, reject) => {
    new k8s.Watch(kc)
      .watch(
        request.path,
        request.query,
        (type, object: Record<string, unknown>) => {
          events.push({ type, object });
          if (until(events)) resolve();
        },
        () => {
          ended = true;
          resolve();
        },
      )
      .then((ac) => {
        controller = ac;
        if (until(events)) resolve();
      }, reject);
  });
  controller?.abort();
  return { events, ended };
}
