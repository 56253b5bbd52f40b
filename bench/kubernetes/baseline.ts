/**
 * The baseline: what a program that knows its box's pod would do with client-node alone, no
 * lease, no database — POST the Sandbox Berth would make (the same pod and disks, built by
 * Berth's own builders from the same template) and its token Secret, poll the Sandbox to Ready
 * for its current spec, read its pod's address, and run the first command on its boxd. Resume:
 * PATCH operatingMode Running, the same poll, the new pod, the first command.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { BoxError, createBoxClient, type BoxClient } from "@berth/box-protocol";
import {
  boxPodTemplate,
  boxVolumeClaims,
  DEFAULT_BOXD_PORT,
  TOKEN_KEY,
  tokenSecretName,
  type BoxTemplate,
  type KubeBoxWorld,
} from "@berth/sandbox/testing";
// eslint-disable-next-line no-restricted-imports -- the baseline is client-node without Berth, by design
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  V1ObjectMeta,
  V1OwnerReference,
  V1Secret,
  type V1Pod,
} from "@kubernetes/client-node";

const SANDBOXES = {
  group: "agents.x-k8s.io",
  version: "v1beta1",
  namespace: "default",
  plural: "sandboxes",
} as const;

interface SandboxView {
  metadata: { name: string; uid?: string; generation?: number };
  spec?: { operatingMode?: string };
  status?: { conditions?: { type: string; status: string; observedGeneration?: number }[] };
}

/** One raw box: its Sandbox's name, its token, and the pod that last served it. */
export interface RawBox {
  readonly name: string;
  readonly token: string;
  podUid: string | undefined;
}

/** The box's token Secret, owned by its Sandbox (so it goes with it), under the name its pod mounts. */
function tokenSecret(sandboxName: string, sandboxUid: string, token: string): V1Secret {
  const owner = new V1OwnerReference();
  owner.apiVersion = `${SANDBOXES.group}/${SANDBOXES.version}`;
  owner.kind = "Sandbox";
  owner.name = sandboxName;
  owner.uid = sandboxUid;
  owner.controller = true;
  const metadata = new V1ObjectMeta();
  metadata.name = tokenSecretName(sandboxName);
  metadata.ownerReferences = [owner];
  const secret = new V1Secret();
  secret.metadata = metadata;
  secret.type = "Opaque";
  secret.data = { [TOKEN_KEY]: Buffer.from(token).toString("base64") };
  return secret;
}

export class RawSandboxes {
  readonly #custom: CustomObjectsApi;
  readonly #core: CoreV1Api;
  readonly #template: BoxTemplate;
  readonly #image: string;
  readonly #pollIntervalMs: number;
  readonly #timeoutMs: number;

  private constructor(options: {
    kubeConfig: KubeConfig;
    template: BoxTemplate;
    image: string;
    pollIntervalMs: number;
    timeoutMs: number;
  }) {
    this.#custom = options.kubeConfig.makeApiClient(CustomObjectsApi);
    this.#core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.#template = options.template;
    this.#image = options.image;
    this.#pollIntervalMs = options.pollIntervalMs;
    this.#timeoutMs = options.timeoutMs;
  }

  /**
   * Reads the SandboxTemplate once, as a program that knows what it runs would: its creates then
   * carry the pod inline (Berth reads the template at every create, and pays for it).
   */
  static async open(options: {
    world: KubeBoxWorld;
    pollIntervalMs: number;
    timeoutMs: number;
  }): Promise<RawSandboxes> {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(options.world.sim.kubeConfig());
    const custom = kubeConfig.makeApiClient(CustomObjectsApi);
    const object = (await custom.getNamespacedCustomObject({
      group: "extensions.agents.x-k8s.io",
      version: "v1beta1",
      namespace: "default",
      plural: "sandboxtemplates",
      name: options.world.profile.template,
    })) as { spec: Pick<BoxTemplate, "podTemplate" | "volumeClaimTemplates"> };
    return new RawSandboxes({
      kubeConfig,
      template: {
        name: options.world.profile.template,
        podTemplate: object.spec.podTemplate,
        volumeClaimTemplates: object.spec.volumeClaimTemplates,
      },
      image: options.world.profile.image,
      pollIntervalMs: options.pollIntervalMs,
      timeoutMs: options.timeoutMs,
    });
  }

  /** POST Sandbox, POST Secret (owned by it), poll to Ready, first exec. */
  async create(): Promise<RawBox> {
    const name = `raw-${randomUUID().slice(0, 8)}`;
    const token = randomBytes(32).toString("hex");
    const created = (await this.#custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: {
        apiVersion: `${SANDBOXES.group}/${SANDBOXES.version}`,
        kind: "Sandbox",
        metadata: { name },
        spec: {
          operatingMode: "Running",
          service: true,
          podTemplate: boxPodTemplate({
            template: this.#template,
            profile: { template: this.#template.name, image: this.#image, resources: {} },
            identity: { kind: "box", sandboxName: name },
            boxdPort: DEFAULT_BOXD_PORT,
          }),
          volumeClaimTemplates: boxVolumeClaims(this.#template),
        },
      },
    })) as SandboxView;
    await this.#core.createNamespacedSecret({
      namespace: SANDBOXES.namespace,
      body: tokenSecret(name, created.metadata.uid ?? "", token),
    });
    const box: RawBox = { name, token, podUid: undefined };
    await this.#serve(box, undefined);
    return box;
  }

  /** PATCH Running, poll to Ready on a new pod, first exec. */
  async resume(box: RawBox): Promise<void> {
    const retiring = box.podUid;
    await this.#setMode(box, "Running");
    await this.#serve(box, retiring);
  }

  /** PATCH Suspended, then wait until the pod no longer runs (untimed: the resume's set-up). */
  async suspend(box: RawBox): Promise<void> {
    await this.#setMode(box, "Suspended");
    await this.#until(async () => {
      const pod = await this.#pod(box.name);
      return pod === undefined || ["Succeeded", "Failed"].includes(pod.status?.phase ?? "");
    });
  }

  async delete(box: RawBox): Promise<void> {
    await this.#custom.deleteNamespacedCustomObject({ ...SANDBOXES, name: box.name });
  }

  async #setMode(box: RawBox, mode: "Running" | "Suspended"): Promise<void> {
    await this.#custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: box.name, body: { spec: { operatingMode: mode } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
  }

  /**
   * Polls the Sandbox until Ready for its current spec, then its pod until Running with an
   * address (not the pod a resume retires), then runs `true` on its boxd — the first command —
   * again each interval while nothing listens yet (a pod is Ready once its process started).
   */
  async #serve(box: RawBox, retiring: string | undefined): Promise<void> {
    let client: BoxClient | undefined;
    await this.#until(async () => {
      client ??= await this.#bound(box, retiring);
      if (client === undefined) return false;
      try {
        const result = await client.exec({ argv: ["true"] });
        if (result.exitCode !== 0) throw new Error(`raw box ${box.name}: \`true\` failed`);
        return true;
      } catch (error) {
        if (error instanceof BoxError && error.code === "unavailable") return false;
        throw error;
      }
    });
  }

  /** A client of the box's boxd once its Sandbox is Ready and its pod bound; else undefined. */
  async #bound(box: RawBox, retiring: string | undefined): Promise<BoxClient | undefined> {
    const sandbox = (await this.#custom.getNamespacedCustomObject({
      ...SANDBOXES,
      name: box.name,
    })) as SandboxView;
    const ready = sandbox.status?.conditions?.find((c) => c.type === "Ready");
    if (ready?.status !== "True") return undefined;
    const generation = sandbox.metadata.generation;
    if (generation !== undefined && (ready.observedGeneration ?? generation) < generation)
      return undefined;
    const pod = await this.#pod(box.name);
    const uid = pod?.metadata?.uid;
    const ip = pod?.status?.podIP;
    if (uid === undefined || uid === retiring || ip === undefined) return undefined;
    if (pod?.metadata?.deletionTimestamp != null || pod?.status?.phase !== "Running")
      return undefined;
    box.podUid = uid;
    return createBoxClient({
      baseUrl: `http://${ip}:${String(DEFAULT_BOXD_PORT)}`,
      token: box.token,
      podUid: uid,
    });
  }

  async #pod(name: string): Promise<V1Pod | undefined> {
    return this.#core
      .readNamespacedPod({ name, namespace: SANDBOXES.namespace })
      .catch((error: unknown) => {
        if ((error as { code?: number }).code === 404) return undefined;
        throw error;
      });
  }

  /** Reads until `done`, pausing the same interval Berth's backend pauses between reads. */
  async #until(done: () => Promise<boolean>): Promise<void> {
    const deadline = performance.now() + this.#timeoutMs;
    while (!(await done())) {
      if (performance.now() > deadline)
        throw new Error(`raw client: not done within ${String(this.#timeoutMs)} ms`);
      await new Promise((resolve) => setTimeout(resolve, this.#pollIntervalMs));
    }
  }
}
