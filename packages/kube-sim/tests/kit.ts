/**
 * Fixtures for the controller and kubelet tests: a simulator with both enabled on a ManualClock,
 * and waits that poll the API through client-node with a real-time deadline (time in the
 * simulation is virtual; only the wait for real processes is bounded by the wall clock).
 */
import type * as k8s from "@kubernetes/client-node";
import type { Fixture } from "./harness.ts";
import { CLAIMS, SANDBOXES, simFixture } from "./harness.ts";
import type { KubeSimOptions } from "../src/index.ts";
import { ManualClock } from "../src/index.ts";
import { timestamp } from "../src/clock.ts";

export interface ControlledFixture extends Fixture {
  clock: ManualClock;
}

export async function clusterFixture(options: KubeSimOptions = {}): Promise<ControlledFixture> {
  const clock = new ManualClock();
  const fixture = await simFixture({ clock, controller: true, kubelet: {}, ...options });
  return Object.assign(fixture, { clock });
}

/** The API timestamp `ms` of virtual time after the fixture's clock now (for shutdownTime). */
export function virtualTimeIn(f: ControlledFixture, ms: number): string {
  return timestamp({ now: () => new Date(f.clock.now().getTime() + ms) });
}

/** Polls `read` until `check` accepts its value; fails with the last value after `ms`. */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  ms = 8_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  for (;;) {
    try {
      last = await read();
      if (check(last)) return last;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `condition not met within ${String(ms)} ms; last value: ${JSON.stringify(last)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

/** The parts of agent-sandbox objects these tests read. */
export interface CustomObject {
  metadata: k8s.V1ObjectMeta;
  spec?: Record<string, unknown>;
  status?: {
    conditions?: Condition[];
    podIPs?: string[];
    nodeName?: string;
    selector?: string;
    service?: string;
    serviceFQDN?: string;
    sandbox?: { name?: string; podIPs?: string[] };
    replicas?: number;
    readyReplicas?: number;
    observedGeneration?: number;
  };
}

export function conditionOf(
  object: { status?: { conditions?: Condition[] } } | undefined,
  type: string,
): Condition | undefined {
  return object?.status?.conditions?.find((c) => c.type === type);
}

export const getSandbox = (f: Fixture, name: string): Promise<CustomObject> =>
  f.custom.getNamespacedCustomObject({ ...SANDBOXES, name }) as Promise<CustomObject>;

export const getClaim = (f: Fixture, name: string): Promise<CustomObject> =>
  f.custom.getNamespacedCustomObject({ ...CLAIMS, name }) as Promise<CustomObject>;

export const POOLS = { ...CLAIMS, plural: "sandboxwarmpools" } as const;
export const TEMPLATES = { ...CLAIMS, plural: "sandboxtemplates" } as const;

export const getPool = (f: Fixture, name: string): Promise<CustomObject> =>
  f.custom.getNamespacedCustomObject({ ...POOLS, name }) as Promise<CustomObject>;

/** Whether a process id is alive (signal 0 checks without killing). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A SandboxTemplate running busybox, with `spec` merged in. */
export function template(
  name: string,
  spec: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: "extensions.agents.x-k8s.io/v1beta1",
    kind: "SandboxTemplate",
    metadata: { name },
    spec: {
      podTemplate: {
        metadata: { labels: { app: "agent" } },
        spec: { containers: [{ name: "main", image: "busybox" }] },
      },
      ...spec,
    },
  };
}

/** A SandboxWarmPool of `replicas` members from `templateName`. */
export function pool(
  name: string,
  templateName: string,
  replicas: number,
): Record<string, unknown> {
  return {
    apiVersion: "extensions.agents.x-k8s.io/v1beta1",
    kind: "SandboxWarmPool",
    metadata: { name },
    spec: { replicas, sandboxTemplateRef: { name: templateName } },
  };
}

/** A SandboxClaim on the pool `poolName`, with `spec` merged in. */
export function claim(
  name: string,
  poolName: string,
  spec: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: "extensions.agents.x-k8s.io/v1beta1",
    kind: "SandboxClaim",
    metadata: { name },
    spec: { warmPoolRef: { name: poolName }, ...spec },
  };
}

/** Every Sandbox in the default namespace. */
export async function listSandboxes(f: ControlledFixture): Promise<CustomObject[]> {
  return (
    (await f.custom.listNamespacedCustomObject({ ...SANDBOXES })) as { items: CustomObject[] }
  ).items;
}
