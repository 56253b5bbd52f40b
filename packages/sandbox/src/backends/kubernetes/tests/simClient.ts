/**
 * A kube-sim and a KubeClient pointed at it over real HTTP, for the Kubernetes backend's tests;
 * plus client-node's own CustomObjectsApi for setting the scene behind the wrapper's back.
 */
import { CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import {
  startKubeSim,
  type KubeSim,
  type KubeSimOptions,
  type LoggedRequest,
} from "@berth/kube-sim";
import { KubeClient } from "../kubeClient.ts";
import type { Operation } from "../operation.ts";

/** The bearer token the test kubeconfig carries: no message may ever contain it. */
export const SECRET_TOKEN = "tok-5ecret-d0-not-print";

export interface SimClient extends AsyncDisposable {
  readonly sim: KubeSim;
  readonly client: KubeClient;
  /** client-node, unwrapped: to create the objects a test starts from. */
  readonly custom: CustomObjectsApi;
  /** The client's kubeconfig text (with SECRET_TOKEN). */
  readonly kubeConfigText: string;
  /** An operation with a generous deadline unless told otherwise. */
  op(timeoutMs?: number, signal?: AbortSignal): Operation;
  /** The requests for sandboxes (discovery and other kinds left out). */
  sandboxRequests(): LoggedRequest[];
}

export async function simClient(
  options: { readonly requestTimeoutMs?: number; readonly sim?: KubeSimOptions } = {},
): Promise<SimClient> {
  const sim = await startKubeSim(options.sim ?? {});
  const kubeConfigText = sim.kubeConfig().replace("token: kube-sim", `token: ${SECRET_TOKEN}`);
  const client = new KubeClient({
    source: { kind: "yaml", text: kubeConfigText },
    ...(options.requestTimeoutMs === undefined
      ? {}
      : { requestTimeoutMs: options.requestTimeoutMs }),
  });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(sim.kubeConfig());
  return {
    sim,
    client,
    custom: kubeConfig.makeApiClient(CustomObjectsApi),
    kubeConfigText,
    op: (timeoutMs = 20_000, signal) =>
      client.operation({ label: "test operation", timeoutMs, ...(signal ? { signal } : {}) }),
    sandboxRequests: () => sim.requests.filter({ resource: "sandboxes" }),
    [Symbol.asyncDispose]: () => sim.close(),
  };
}

/** Polls `condition` on the event loop until it holds; fails after `ms` (no fixed sleeps). */
export async function until(condition: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The rejection of `promise` (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}
