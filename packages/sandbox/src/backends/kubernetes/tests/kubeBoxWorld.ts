/**
 * A kube-sim running the agent-sandbox controller and a kubelet whose pods run boxd, with Berth's
 * SandboxTemplate applied (as `test`, the template of the world's profile), and the clients the adapter tests use: Kubernetes adapters of one installation, and client-node's own
 * APIs to look (or reach) behind the adapter's back.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { CoreV1Api, CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { startKubeSim, type KubeSim } from "@berth/kube-sim";
import type { BoxMetadata } from "../../../spawner/backend.ts";
import type { ExecutionProfile } from "../../../spawner/executionProfile.ts";
import { KubeClient } from "../kubeClient.ts";
import { KubernetesBackend, type KubernetesBackendOptions } from "../kubernetesBackend.ts";
import { BOXD_TEST_IMAGE, boxdRuntimes } from "./boxdRuntime.ts";
import { applyBoxTemplate, applyWarmPool, type BoxTemplateManifest } from "./boxTemplate.ts";

/** The Sandboxes collection, as client-node's CustomObjectsApi names it. */
export const SANDBOXES = {
  group: "agents.x-k8s.io",
  version: "v1beta1",
  namespace: "default",
  plural: "sandboxes",
} as const;

/** The SandboxWarmPools collection. */
export const WARM_POOLS = {
  group: "extensions.agents.x-k8s.io",
  version: "v1beta1",
  namespace: "default",
  plural: "sandboxwarmpools",
} as const;

export interface KubeBoxWorld extends AsyncDisposable {
  readonly sim: KubeSim;
  readonly core: CoreV1Api;
  readonly custom: CustomObjectsApi;
  /** Berth's secret, from which the boxes' tokens derive. */
  readonly secret: string;
  readonly installationId: string;
  readonly profile: ExecutionProfile;
  /**
   * A new adapter object (a holder: spawner, drainer) of this installation; `warmPool` claims
   * from that pool (applyWarmPool).
   */
  adapter(
    options?: Partial<Pick<KubernetesBackendOptions, "warmPool" | "operationTimeoutMs" | "secret">>,
  ): KubernetesBackend;
  /** Applies deploy/kubernetes/warm-pool.yaml as pool `name` of `replicas` boxd pods. */
  applyWarmPool(name: string, replicas: number): Promise<void>;
  /**
   * Resolves once pool `name` reports a Ready member (its controller replaces each one taken),
   * reading the pool after each settling of the simulator; fails after `timeoutMs`.
   */
  warmPoolReady(name: string, timeoutMs?: number): Promise<void>;
  /** A new client of the simulator, for writes made behind the adapter's back. */
  client(): KubeClient;
  /** Applies Berth's SandboxTemplate as `name`, edited; a profile naming it makes boxes from it. */
  applyTemplate(
    name: string,
    edit?: (manifest: BoxTemplateManifest) => BoxTemplateManifest,
  ): Promise<void>;
  /** Metadata of a new allocation (fresh ids) at `epoch`. */
  metadata(epoch?: number): BoxMetadata;
}

export async function kubeBoxWorld(): Promise<KubeBoxWorld> {
  const sim = await startKubeSim({ controller: true, kubelet: { runtimes: boxdRuntimes } });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(sim.kubeConfig());
  await applyBoxTemplate(sim.kubeConfig(), "test");
  const secret = randomBytes(24).toString("hex");
  const installationId = randomUUID();
  const client = () => new KubeClient({ source: { kind: "yaml", text: sim.kubeConfig() } });
  return {
    sim,
    core: kubeConfig.makeApiClient(CoreV1Api),
    custom: kubeConfig.makeApiClient(CustomObjectsApi),
    secret,
    installationId,
    profile: { template: "test", image: BOXD_TEST_IMAGE, resources: {} },
    adapter: (options = {}) =>
      new KubernetesBackend({
        client: client(),
        installationId: () => Promise.resolve(installationId),
        secret,
        pollIntervalMs: 20,
        operationTimeoutMs: 20_000,
        ...options,
      }),
    applyWarmPool: (name, replicas) =>
      applyWarmPool(sim.kubeConfig(), { name, replicas, image: BOXD_TEST_IMAGE }),
    warmPoolReady: async (name, timeoutMs = 30_000) => {
      const custom = kubeConfig.makeApiClient(CustomObjectsApi);
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const pool = (await custom.getNamespacedCustomObject({ ...WARM_POOLS, name })) as {
          status?: { readyReplicas?: number };
        };
        if ((pool.status?.readyReplicas ?? 0) > 0) return;
        if (performance.now() > deadline)
          throw new Error(`warm pool ${name} had no Ready member within ${String(timeoutMs)} ms`);
        // A member's boxd starts on real time: settled covers the controllers, not the process.
        await sim.settled();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    client,
    applyTemplate: (name, edit) => applyBoxTemplate(sim.kubeConfig(), name, edit),
    metadata: (epoch = 1) => ({
      workspaceId: randomUUID(),
      leaseId: randomUUID(),
      sandboxGroupId: randomUUID(),
      epoch,
      allocationId: randomUUID(),
    }),
    [Symbol.asyncDispose]: () => sim.close(),
  };
}

/** A Sandbox's spec.operatingMode (Running, Suspended), as the cluster holds it. */
export async function sandboxMode(world: KubeBoxWorld, name: string): Promise<string | undefined> {
  const sandbox = (await world.custom.getNamespacedCustomObject({ ...SANDBOXES, name })) as {
    spec?: { operatingMode?: string };
  };
  return sandbox.spec?.operatingMode;
}

/** Whether the cluster answers 404 for the Sandbox. */
export async function sandboxGone(world: KubeBoxWorld, name: string): Promise<boolean> {
  return world.custom.getNamespacedCustomObject({ ...SANDBOXES, name }).then(
    () => false,
    (error: unknown) => (error as { code?: number }).code === 404,
  );
}
