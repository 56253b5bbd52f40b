/**
 * The Backend port on a Kubernetes cluster with the agent-sandbox controller: one Sandbox per
 * allocation (allocation.ts), its workspace on a PVC the Sandbox owns, boxd in its pod reached
 * at the pod's IP. Every port call is one operation with one deadline; every wait is a poll.
 * Nothing of a box lives in this object: any adapter of the same installation and namespace
 * serves every box the others made.
 */
import { deriveBoxToken, createBoxClient, type BoxClient } from "@berth/box-protocol";
import {
  BackendError,
  noBoxLimits,
  type Backend,
  type BoxConfinement,
  type BoxInfo,
  type CreateBoxInput,
  type CreatedBox,
  type ReadyOptions,
} from "../../spawner/backend.ts";
import { executionProfileSchema } from "../../spawner/executionProfile.ts";
import { NotServingYet, waitUntilServing } from "../../spawner/readiness.ts";
import { allocateSandbox, readAllocation } from "./allocation.ts";
import { boxPodTemplate, workspaceClaimTemplate } from "./boxPodTemplate.ts";
import { LABELS } from "./berthKeys.ts";
import type { KubeClient } from "./kubeClient.ts";
import { toBackendError } from "./kubeBackendErrors.ts";
import { KubeError } from "./kubeErrors.ts";
import { SANDBOX, type KubeObject } from "./kubeObjects.ts";
import type { Operation } from "./operation.ts";
import { installationSelector, readSandboxIdentity } from "./sandboxLabels.ts";
import { isDns1123Label, sandboxNameFor } from "./sandboxNames.ts";
import { boxStateOf, notReadyReason, operatingModeOf } from "./sandboxStatus.ts";

/** boxd's port in the pod (its own default). */
export const DEFAULT_BOXD_PORT = 7070;

export interface KubernetesBackendOptions {
  readonly client: KubeClient;
  /** This installation's id: every box is labelled with it, and inventory selects by it. */
  readonly installationId: () => Promise<string>;
  /** Berth's secret, from which each box's token is derived (never stored by Berth). */
  readonly secret: string;
  readonly boxdPort?: number;
  /** The workspace disk each box claims (default 10Gi of the cluster's default class). */
  readonly disk?: { readonly storage: string; readonly storageClassName?: string };
  /** The deadline of a create, terminate, suspend or resume (default 120 s). */
  readonly operationTimeoutMs?: number;
  /** The pause between two reads of a poll (default 200 ms). */
  readonly pollIntervalMs?: number;
}

/** What a pod gives its box: the pod's own isolation and network; limits the cluster enforces. */
const POD_CONFINEMENT: BoxConfinement = {
  isolation: "pod",
  network: "pod",
  limits: noBoxLimits,
};

export class KubernetesBackend implements Backend {
  readonly kind = "kubernetes" as const;
  readonly #client: KubeClient;
  readonly #installationId: () => Promise<string>;
  readonly #secret: string;
  readonly #boxdPort: number;
  readonly #disk: { readonly storage: string; readonly storageClassName?: string };
  readonly #operationTimeoutMs: number;
  readonly #pollIntervalMs: number;

  constructor(options: KubernetesBackendOptions) {
    if (options.secret.length < 32)
      throw new Error("KubernetesBackend: the secret must be at least 32 characters");
    this.#client = options.client;
    this.#installationId = options.installationId;
    this.#secret = options.secret;
    this.#boxdPort = options.boxdPort ?? DEFAULT_BOXD_PORT;
    this.#disk = options.disk ?? { storage: "10Gi" };
    this.#operationTimeoutMs = options.operationTimeoutMs ?? 120_000;
    this.#pollIntervalMs = options.pollIntervalMs ?? 200;
  }

  async create(input: CreateBoxInput): Promise<CreatedBox> {
    return this.#run({ operation: "create" }, async (op) => {
      const { metadata } = input;
      const profile = executionProfileSchema.safeParse(input.profile);
      if (!profile.success)
        throw invalid(`create: invalid profile: ${profile.error.issues[0]?.message ?? ""}`);
      const sandboxGroupId = metadata.sandboxGroupId;
      if (sandboxGroupId === undefined || sandboxGroupId === "")
        throw invalid("create: a Kubernetes box needs its lease's sandbox group id");
      const installationId = await this.#installationId();
      const sandboxName = sandboxNameFor({ sandboxGroupId, allocationId: metadata.allocationId });
      const allocation = await allocateSandbox(this.#client, op, {
        installationId,
        sandboxGroupId,
        // The box is this installation's whatever the caller says (as on every adapter).
        metadata: { ...metadata, installationId },
        profile: profile.data,
        podTemplate: boxPodTemplate({
          profile: profile.data,
          sandboxName,
          token: this.#token(metadata.allocationId),
          boxdPort: this.#boxdPort,
        }),
        volumeClaimTemplates: [workspaceClaimTemplate(this.#disk)],
        retryIntervalMs: this.#pollIntervalMs,
      });
      // The scope names installation, workspace and group; the lease is the one label left to
      // check: an allocation is one lease's, never adopted by another.
      const lease = allocation.sandbox.metadata.labels?.[LABELS.leaseId];
      if (allocation.outcome === "adopted" && lease !== metadata.leaseId) {
        throw invalid(
          `allocation ${metadata.allocationId} already made box ${sandboxName} for lease ${String(lease)}`,
          sandboxName,
        );
      }
      return { instanceId: allocation.names.sandbox, confinement: POD_CONFINEMENT };
    });
  }

  ready(instanceId: string, options: ReadyOptions): Promise<BoxClient> {
    return waitUntilServing({
      instanceId,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      intervalMs: this.#pollIntervalMs,
      reach: (remainingMs) =>
        this.#run(
          {
            operation: "ready",
            instanceId,
            timeoutMs: Math.max(1, Math.floor(remainingMs)),
            signal: options.signal,
          },
          (op) => this.#reach(op, instanceId),
        ),
    });
  }

  connect(instanceId: string): Promise<BoxClient> {
    return this.#run({ operation: "connect", instanceId }, (op) => this.#reach(op, instanceId));
  }

  async resume(instanceId: string): Promise<void> {
    const startedAt = performance.now();
    await this.#run({ operation: "resume", instanceId }, async (op) => {
      const sandbox = await this.#sandbox(op, instanceId);
      if (operatingModeOf(sandbox) === "Suspended") {
        await this.#client.patch(
          op,
          { kind: SANDBOX, name: instanceId },
          { type: "merge", body: { spec: { operatingMode: "Running" } } },
        );
      }
    });
    // Serving again once boxd in the new pod runs a command: the same wait a create's caller
    // makes, on what is left of this operation's budget.
    const left = this.#operationTimeoutMs - (performance.now() - startedAt);
    await this.ready(instanceId, { timeoutMs: Math.max(1, Math.floor(left)) });
  }

  async suspend(instanceId: string): Promise<void> {
    await this.#run({ operation: "suspend", instanceId }, async (op) => {
      const sandbox = await this.#sandbox(op, instanceId);
      if (operatingModeOf(sandbox) !== "Suspended") {
        await this.#client.patch(
          op,
          { kind: SANDBOX, name: instanceId },
          { type: "merge", body: { spec: { operatingMode: "Suspended" } } },
        );
      }
      // Suspended once the pod has stopped: gone, or terminal. Neither the Suspended condition
      // nor a deletionTimestamp says the box no longer writes to its disk.
      await this.#poll(op, "the box's pod did not stop", async () => {
        const pod = await this.#pod(op, instanceId);
        return pod === undefined || pod.phase === "Succeeded" || pod.phase === "Failed";
      });
    });
  }

  async terminate(instanceId: string): Promise<void> {
    if (!isDns1123Label(instanceId)) return;
    await this.#run({ operation: "terminate", instanceId }, async (op) => {
      const target = { kind: SANDBOX, name: instanceId };
      if ((await this.#client.delete(op, target)) === "already_gone") return;
      // Deleted once the API no longer answers it (a finalizer may hold it a while); its pod,
      // Service and PVC go with it by garbage collection.
      await this.#poll(op, "the Sandbox was not deleted", async () => {
        try {
          await this.#client.get(op, target);
          return false;
        } catch (error) {
          if (error instanceof KubeError && error.kind === "gone") return true;
          throw error;
        }
      });
    });
  }

  async inventory(): Promise<readonly BoxInfo[]> {
    return this.#run({ operation: "inventory" }, async (op) => {
      const installationId = await this.#installationId();
      const sandboxes = await this.#client.list(op, SANDBOX, {
        labelSelector: installationSelector(installationId),
      });
      const boxes: BoxInfo[] = [];
      for (const sandbox of sandboxes) {
        const identity = readSandboxIdentity(sandbox.metadata);
        // Labelled as ours but unreadable: not a box Berth made, never swept.
        if (identity === undefined || identity.installationId !== installationId) continue;
        const created = sandbox.metadata.creationTimestamp;
        boxes.push({
          instanceId: sandbox.metadata.name,
          metadata: {
            ...identity.metadata,
            sandboxGroupId: identity.sandboxGroupId,
            installationId,
          },
          createdAt: created === undefined ? new Date(0) : new Date(created),
          ...POD_CONFINEMENT,
          state: boxStateOf(sandbox),
        });
      }
      return boxes.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    });
  }

  /**
   * A client of the box's boxd, at its pod's IP, once the Sandbox is Ready for its current spec
   * and its pod is live with an address; NotServingYet (a BackendError `unavailable` to
   * callers) until then.
   */
  async #reach(op: Operation, instanceId: string): Promise<BoxClient> {
    const sandbox = await this.#sandbox(op, instanceId);
    const state = boxStateOf(sandbox);
    switch (state) {
      case "gone":
        throw notFound(instanceId, "is being deleted");
      case "suspended":
        throw new NotServingYet(`box ${instanceId} is suspended (resume it first)`);
      case "starting":
        throw new NotServingYet(`box ${instanceId} is starting: ${notReadyReason(sandbox)}`);
      case "running":
        break;
    }
    const pod = await this.#pod(op, instanceId);
    if (pod === undefined || pod.deleting || pod.phase !== "Running" || pod.podIP === undefined) {
      throw new NotServingYet(
        `box ${instanceId}'s pod is ${pod === undefined ? "missing" : pod.deleting ? "terminating" : pod.podIP === undefined ? "without an address" : `in phase ${String(pod.phase)}`}`,
      );
    }
    const allocationId = readAllocation(sandbox.metadata).id;
    if (allocationId === undefined)
      throw invalid(`box ${instanceId} carries no allocation id`, instanceId);
    return createBoxClient({
      baseUrl: `http://${hostOf(pod.podIP)}:${String(this.#boxdPort)}`,
      token: this.#token(allocationId),
    });
  }

  /** The box's Sandbox; not_found when there is none (or the id is not a Sandbox name). */
  async #sandbox(op: Operation, instanceId: string): Promise<KubeObject> {
    if (!isDns1123Label(instanceId)) throw notFound(instanceId, "is not a Sandbox name");
    try {
      return await this.#client.get(op, { kind: SANDBOX, name: instanceId });
    } catch (error) {
      if (error instanceof KubeError && error.kind === "gone") throw notFound(instanceId, "");
      throw error;
    }
  }

  /** The box's pod (named after its Sandbox by the controller), or undefined when none. */
  async #pod(op: Operation, instanceId: string) {
    try {
      return await this.#client.getPod(op, instanceId);
    } catch (error) {
      if (error instanceof KubeError && error.kind === "gone") return undefined;
      throw error;
    }
  }

  /**
   * Reads until `done`, pausing between reads, inside the operation's one deadline; once that
   * is spent, `unavailable` naming what never happened (a later call may see it done).
   */
  async #poll(op: Operation, waitingFor: string, done: () => Promise<boolean>): Promise<void> {
    while (!(await done())) {
      if (op.cause() !== undefined || op.remainingMs() <= this.#pollIntervalMs) {
        throw new BackendError({
          code: "unavailable",
          message: `${op.label}: ${waitingFor} within ${String(op.timeoutMs)} ms`,
        });
      }
      await op.sleep(this.#pollIntervalMs);
    }
  }

  #token(allocationId: string): string {
    return deriveBoxToken({ secret: this.#secret, instanceId: `kubernetes/${allocationId}` });
  }

  /** One port call: one operation and deadline, every failure as a BackendError. */
  async #run<T>(
    call: {
      readonly operation: string;
      readonly instanceId?: string;
      readonly timeoutMs?: number;
      readonly signal?: AbortSignal | undefined;
    },
    work: (op: Operation) => Promise<T>,
  ): Promise<T> {
    const { operation, instanceId, signal } = call;
    const timeoutMs = call.timeoutMs ?? this.#operationTimeoutMs;
    const op = this.#client.operation({
      label: instanceId === undefined ? operation : `${operation} ${instanceId}`,
      timeoutMs,
      ...(signal === undefined ? {} : { signal }),
    });
    try {
      return await work(op);
    } catch (error) {
      if (error instanceof NotServingYet) {
        throw new BackendError({
          code: "unavailable",
          message: error.message,
          ...(instanceId === undefined ? {} : { instanceId }),
          cause: error,
        });
      }
      throw toBackendError(error, {
        operation,
        ...(instanceId === undefined ? {} : { instanceId }),
      });
    }
  }
}

function invalid(message: string, instanceId?: string): BackendError {
  return new BackendError({
    code: "invalid",
    message,
    ...(instanceId === undefined ? {} : { instanceId }),
  });
}

function notFound(instanceId: string, why: string): BackendError {
  return new BackendError({
    code: "not_found",
    message: `no box ${instanceId}${why === "" ? "" : ` (${why})`}`,
    instanceId,
  });
}

/** An IPv6 pod IP goes in brackets in a URL. */
function hostOf(ip: string): string {
  return ip.includes(":") ? `[${ip}]` : ip;
}
