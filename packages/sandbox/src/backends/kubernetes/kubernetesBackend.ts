/**
 * The Backend port on a Kubernetes cluster with the agent-sandbox controller: one Sandbox per
 * allocation (allocation.ts), its workspace on a PVC the Sandbox owns, boxd in its pod reached
 * at the pod's IP. Every port call is one operation with one deadline; every wait is a poll.
 * Nothing of a box lives in this object: any adapter of the same installation and namespace
 * serves every box the others made.
 */
import { createBoxClient, type BoxClient } from "@berth/box-protocol";
import {
  BackendError,
  type Backend,
  type BoxConfinement,
  type BoxInfo,
  type BoxWrite,
  type CreateBoxInput,
  type CreatedBox,
  type ReadyOptions,
  type StraySweep,
} from "../../spawner/backend.ts";
import { executionProfileSchema } from "../../spawner/executionProfile.ts";
import { NotServingYet, waitUntilServing } from "../../spawner/readiness.ts";
import { readAllocation } from "./allocation.ts";
import { WORKSPACE_VOLUME } from "./boxPodTemplate.ts";
import { boxToken } from "./boxTokenSecret.ts";
import { LABELS } from "./berthKeys.ts";
import { fencedDelete } from "./holderEpoch.ts";
import type { KubeClient } from "./kubeClient.ts";
import { backendInvalid, boxNotFound, toBackendError } from "./kubeBackendErrors.ts";
import { KubeError } from "./kubeErrors.ts";
import { retrying } from "./kubeRetry.ts";
import { SANDBOX, type KubeObject, type PodReading } from "./kubeObjects.ts";
import { writeOperatingMode } from "./operatingModeWrite.ts";
import { poolKey } from "./poolKeySecret.ts";
import { objectGone } from "./objectGone.ts";
import { sweepStrayClaims } from "./strayClaims.ts";
import { releaseWarmClaim } from "./warmClaim.ts";
import { BoxMaker, type BoxRequest } from "./boxMaker.ts";
import { bindPooledBoxd } from "./boxdBinding.ts";
import { hostOf, whyUnbound } from "./podBinding.ts";
import { podConfinement } from "./podConfinement.ts";
import { unreachablePodNetwork } from "./podNetwork.ts";
import { diagnosePod } from "./readinessDiagnosis.ts";
import type { Operation } from "./operation.ts";
import { pollUntil } from "./operationPoll.ts";
import { installationSelector, readSandboxIdentity } from "./sandboxLabels.ts";
import { isDns1123Label } from "./sandboxNames.ts";
import { boxStateOf, notReadyReason, operatingModeOf } from "./sandboxStatus.ts";

/** How long the one read that diagnoses a box that never served may take. */
const DIAGNOSIS_MS = 5_000;

/** boxd's port in the pod (its own default). */
export const DEFAULT_BOXD_PORT = 7070;

export interface KubernetesBackendOptions {
  readonly client: KubeClient;
  /** This installation's id: every box is labelled with it, and inventory selects by it. */
  readonly installationId: () => Promise<string>;
  /** Berth's secret, from which each box's token is derived (never stored by Berth). */
  readonly secret: string;
  readonly boxdPort?: number;
  /** The deadline of a create, terminate, suspend or resume (default 120 s). */
  readonly operationTimeoutMs?: number;
  /** The pause between two reads of a poll (default 200 ms). */
  readonly pollIntervalMs?: number;
  /** Wall-clock time for the annotations that record when a mode changed. */
  readonly now?: () => Date;
  /**
   * `none` where the cluster's pods are host processes (kube-sim): its boxes are recorded and
   * shown as unisolated, on the host's network. Default `pod`.
   */
  readonly isolation?: "pod" | "none";
  /**
   * An operator's SandboxWarmPool (BERTH_KUBE_WARM_POOL): boxes are claimed from it while it has
   * a Ready member, and created directly when it has none.
   */
  readonly warmPool?: string;
}

/** A readiness wait's record of the Sandbox (by uid) whose disk it found to be its own. */
interface ClaimCheck {
  verifiedFor: string | undefined;
}

export class KubernetesBackend implements Backend {
  readonly kind = "kubernetes" as const;
  /** A drain suspends the Sandbox: its PVC is kept, and the next spawn resumes it. */
  readonly drainKeepsDisk = true;
  readonly #client: KubeClient;
  readonly #installationId: () => Promise<string>;
  readonly #secret: string;
  readonly #boxdPort: number;
  readonly #operationTimeoutMs: number;
  readonly #pollIntervalMs: number;
  readonly #now: () => Date;
  readonly #confinement: BoxConfinement;
  readonly #maker: BoxMaker;

  constructor(options: KubernetesBackendOptions) {
    if (options.secret.length < 32)
      throw new Error("KubernetesBackend: the secret must be at least 32 characters");
    this.#client = options.client;
    this.#installationId = options.installationId;
    this.#secret = options.secret;
    this.#boxdPort = options.boxdPort ?? DEFAULT_BOXD_PORT;
    this.#operationTimeoutMs = options.operationTimeoutMs ?? 120_000;
    this.#pollIntervalMs = options.pollIntervalMs ?? 200;
    this.#now = options.now ?? (() => new Date());
    this.#confinement = podConfinement(options.isolation ?? "pod");
    this.#maker = new BoxMaker({
      client: this.#client,
      secret: this.#secret,
      boxdPort: this.#boxdPort,
      pollIntervalMs: this.#pollIntervalMs,
      warmPool: options.warmPool,
      terminate: (sandboxName, epoch) => this.terminate(sandboxName, { epoch }),
    });
  }

  async create(input: CreateBoxInput): Promise<CreatedBox> {
    return this.#run({ operation: "create" }, async (op) => {
      const { metadata } = input;
      const profile = executionProfileSchema.safeParse(input.profile);
      if (!profile.success)
        throw backendInvalid(`create: invalid profile: ${profile.error.issues[0]?.message ?? ""}`);
      const sandboxGroupId = metadata.sandboxGroupId;
      if (sandboxGroupId === undefined || sandboxGroupId === "")
        throw backendInvalid("create: a Kubernetes box needs its lease's sandbox group id");
      const installationId = await this.#installationId();
      const box: BoxRequest = {
        installationId,
        sandboxGroupId,
        // The box is this installation's whatever the caller says (as on every adapter).
        metadata: { ...metadata, installationId },
        profile: profile.data,
      };
      const made = await this.#maker.make(op, box);
      // The scope names installation, workspace and group; the lease is the one label left to
      // check: an allocation is one lease's, never adopted by another.
      const lease = made.sandbox.metadata.labels?.[LABELS.leaseId];
      if (made.outcome === "adopted" && lease !== metadata.leaseId) {
        throw backendInvalid(
          `allocation ${metadata.allocationId} already made box ${made.sandbox.metadata.name} for lease ${String(lease)}`,
          made.sandbox.metadata.name,
        );
      }
      if (made.outcome === "adopted") await this.#takeOver(op, made.sandbox, metadata.epoch);
      return { instanceId: made.sandbox.metadata.name, confinement: this.#confinement };
    });
  }

  /**
   * An adopting spawner's epoch gate: refused when a newer epoch holds the box; a newer epoch
   * than the stored one stamps itself (one JSON Patch, nothing else changed), so the holder it
   * succeeds can no longer suspend, wake or delete it.
   */
  async #takeOver(op: Operation, sandbox: KubeObject, epoch: number): Promise<void> {
    // The mode write of the mode it already has: only the fence (refuse, or stamp) remains.
    await writeOperatingMode(this.#client, op, {
      operation: "create",
      sandbox,
      mode: operatingModeOf(sandbox),
      epoch,
      now: this.#now,
    });
  }

  ready(instanceId: string, options: ReadyOptions): Promise<BoxClient> {
    return this.#ready(instanceId, options, undefined);
  }

  /**
   * The readiness wait, skipping the pod `retiring` (a suspended box's old pod, still
   * terminating). Once the budget is spent, one read of the pod says what it waited for:
   * unschedulable is `capacity`, an image that cannot be pulled `invalid`.
   */
  async #ready(
    instanceId: string,
    options: ReadyOptions,
    retiring: string | undefined,
  ): Promise<BoxClient> {
    // A disk found to be the Sandbox's own stays so for the wait: checked once, not each poll.
    const claim: ClaimCheck = { verifiedFor: undefined };
    try {
      return await waitUntilServing({
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
            (op) => this.#reach(op, instanceId, { retiring, claim }),
          ),
      });
    } catch (error) {
      if (!(error instanceof BackendError && error.code === "unavailable")) throw error;
      // A Ready pod whose IP took no connection says more than the pod: see podNetwork.ts.
      throw (
        unreachablePodNetwork(instanceId, error) ??
        (await this.#diagnosed(instanceId, error)) ??
        error
      );
    }
  }

  async #diagnosed(instanceId: string, timedOut: BackendError): Promise<BackendError | undefined> {
    try {
      const pod = await this.#run(
        { operation: "diagnose", instanceId, timeoutMs: DIAGNOSIS_MS },
        (op) => this.#pod(op, instanceId),
      );
      const diagnosis = pod === undefined ? undefined : diagnosePod(pod);
      if (diagnosis === undefined) return undefined;
      return new BackendError({
        code: diagnosis.code,
        message: `box ${instanceId} never served: ${diagnosis.message}`,
        instanceId,
        cause: timedOut,
      });
    } catch {
      // No diagnosis: the wait's own error says what it saw last.
      return undefined;
    }
  }

  connect(instanceId: string): Promise<BoxClient> {
    return this.#run({ operation: "connect", instanceId }, (op) =>
      this.#reach(op, instanceId, { retiring: undefined, claim: undefined }),
    );
  }

  async resume(instanceId: string, write?: BoxWrite): Promise<BoxConfinement> {
    const startedAt = performance.now();
    const retiring = await this.#run({ operation: "resume", instanceId }, async (op) => {
      const sandbox = await this.#sandbox(op, instanceId);
      // A pod still there while the Sandbox is suspended is the old one, terminating: the box
      // serves again only from a pod with another uid.
      const suspended = boxStateOf(sandbox) === "suspended";
      const old = suspended ? await this.#pod(op, instanceId) : undefined;
      await writeOperatingMode(this.#client, op, {
        operation: "resume",
        sandbox,
        mode: "Running",
        epoch: write?.epoch,
        now: this.#now,
      });
      return old?.uid;
    });
    // Serving again once boxd in the new pod runs a command: the wait a create's caller makes,
    // on what is left of this operation's budget.
    const left = this.#operationTimeoutMs - (performance.now() - startedAt);
    await this.#ready(instanceId, { timeoutMs: Math.max(1, Math.floor(left)) }, retiring);
    return this.#confinement;
  }

  async suspend(instanceId: string, write?: BoxWrite): Promise<void> {
    await this.#run({ operation: "suspend", instanceId }, async (op) => {
      const sandbox = await this.#sandbox(op, instanceId);
      await writeOperatingMode(this.#client, op, {
        operation: "suspend",
        sandbox,
        mode: "Suspended",
        epoch: write?.epoch,
        now: this.#now,
      });
      // Suspended once the pod has stopped: gone, or terminal. Neither the Suspended condition
      // nor a deletionTimestamp says the box no longer writes to its disk.
      await this.#poll(op, "the box's pod did not stop", async () => {
        const pod = await this.#pod(op, instanceId);
        return pod === undefined || pod.phase === "Succeeded" || pod.phase === "Failed";
      });
    });
  }

  async terminate(instanceId: string, write?: BoxWrite): Promise<void> {
    if (!isDns1123Label(instanceId)) return;
    await this.#run({ operation: "terminate", instanceId }, async (op) => {
      const target = { kind: SANDBOX, name: instanceId };
      const epoch = write?.epoch;
      // A DELETE is idempotent: one the server could not answer now is sent again.
      // A box taken from a warm pool first leaves its claim (which would otherwise bind
      // another member in its place); the claim goes with Orphan, so only the delete below,
      // fenced, decides the Sandbox's fate.
      const release = (sandbox: KubeObject) =>
        releaseWarmClaim(this.#client, op, { sandbox, intervalMs: this.#pollIntervalMs });
      const outcome = await retrying(
        op,
        async () => {
          if (epoch !== undefined)
            return fencedDelete(this.#client, op, {
              name: instanceId,
              epoch,
              beforeDelete: release,
            });
          try {
            await release(await this.#client.get(op, target));
          } catch (error) {
            if (!(error instanceof KubeError && error.kind === "gone")) throw error;
          }
          return this.#client.delete(op, target);
        },
        this.#pollIntervalMs,
      );
      if (outcome === "already_gone") return;
      // Deleted once the API no longer answers it (a finalizer may hold it a while); its pod,
      // Service and PVC go with it by garbage collection.
      await this.#poll(op, "the Sandbox was not deleted", () =>
        objectGone(this.#client, op, target),
      );
    });
  }

  sweepStrays(horizon: Date): Promise<StraySweep> {
    return this.#run({ operation: "sweep-strays" }, async (op) =>
      sweepStrayClaims(this.#client, op, {
        installationId: await this.#installationId(),
        horizon,
      }),
    );
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
          ...this.#confinement,
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
  async #reach(
    op: Operation,
    instanceId: string,
    check: { readonly retiring: string | undefined; readonly claim: ClaimCheck | undefined },
  ): Promise<BoxClient> {
    const sandbox = await this.#sandbox(op, instanceId);
    // A stranger's disk is refused whatever the Sandbox says: its controller may never get Ready
    // over it, and waiting would not change whose it is.
    const { claim } = check;
    if (
      claim !== undefined &&
      boxStateOf(sandbox) !== "gone" &&
      claim.verifiedFor !== sandbox.metadata.uid &&
      (await this.#checkClaim(op, sandbox))
    )
      claim.verifiedFor = sandbox.metadata.uid;
    const state = boxStateOf(sandbox);
    switch (state) {
      case "gone":
        throw boxNotFound(instanceId, "is being deleted");
      case "suspended":
        throw new NotServingYet(`box ${instanceId} is suspended (resume it first)`);
      case "starting":
        throw new NotServingYet(`box ${instanceId} is starting: ${notReadyReason(sandbox)}`);
      case "running":
        break;
    }
    const pod = await this.#pod(op, instanceId);
    const unbound = whyUnbound(pod, check.retiring);
    if (unbound !== undefined || pod?.podIP === undefined || pod.uid === undefined)
      throw new NotServingYet(`box ${instanceId}'s pod is ${unbound ?? "missing"}`);
    const allocationId = readAllocation(sandbox.metadata).id;
    if (allocationId === undefined)
      throw backendInvalid(`box ${instanceId} carries no allocation id`, instanceId);
    const baseUrl = `http://${hostOf(pod.podIP)}:${String(this.#boxdPort)}`;
    const token = this.#token(allocationId);
    // A warm pool's pod starts unbound: it serves this box once bound to its name and token.
    if (sandbox.metadata.labels?.[LABELS.warmClaim] !== undefined)
      await bindPooledBoxd({
        baseUrl,
        podUid: pod.uid,
        poolKey: poolKey(this.#secret, await this.#installationId()),
        instanceId,
        token,
        signal: op.signal,
      });
    return createBoxClient({ baseUrl, token, podUid: pod.uid });
  }

  /**
   * The workspace disk must be the Sandbox's own: a PVC is its only when the PVC's controller
   * owner reference carries the Sandbox's uid. A stranger's PVC under the expected name is
   * refused — never served (and, not being owned, never deleted with the Sandbox). True once
   * the disk exists and is the Sandbox's.
   */
  async #checkClaim(op: Operation, sandbox: KubeObject): Promise<boolean> {
    const name = `${WORKSPACE_VOLUME}-${sandbox.metadata.name}`;
    let claim;
    try {
      claim = await this.#read(op, () => this.#client.getClaim(op, name));
    } catch (error) {
      // Not made yet (or gone with a suspended box's cleanup): the controller makes it.
      if (error instanceof KubeError && error.kind === "gone") return false;
      throw error;
    }
    const uid = sandbox.metadata.uid;
    if (uid === undefined || claim.controllerUid !== uid) {
      throw backendInvalid(
        `box ${sandbox.metadata.name}'s disk ${name} is not its own (its controller is ${claim.controllerUid ?? "none"}, the Sandbox is ${uid ?? "unknown"}): refusing to use it`,
        sandbox.metadata.name,
      );
    }
    return true;
  }

  /** The box's Sandbox; not_found when there is none (or the id is not a Sandbox name). */
  async #sandbox(op: Operation, instanceId: string): Promise<KubeObject> {
    if (!isDns1123Label(instanceId)) throw boxNotFound(instanceId, "is not a Sandbox name");
    try {
      return await this.#read(op, () => this.#client.get(op, { kind: SANDBOX, name: instanceId }));
    } catch (error) {
      if (error instanceof KubeError && error.kind === "gone") throw boxNotFound(instanceId, "");
      throw error;
    }
  }

  /** The box's pod (named after its Sandbox by the controller), or undefined when none. */
  async #pod(op: Operation, instanceId: string): Promise<PodReading | undefined> {
    try {
      return await this.#read(op, () => this.#client.getPod(op, instanceId));
    } catch (error) {
      if (error instanceof KubeError && error.kind === "gone") return undefined;
      throw error;
    }
  }

  /**
   * A read, sent again past a throttled, unavailable or timed-out answer within the operation's
   * deadline: a wait whose one read was throttled would otherwise end as `capacity` at once.
   */
  #read<T>(op: Operation, read: () => Promise<T>): Promise<T> {
    return retrying(op, read, this.#pollIntervalMs);
  }

  #poll(op: Operation, waitingFor: string, done: () => Promise<boolean>): Promise<void> {
    return pollUntil(op, { intervalMs: this.#pollIntervalMs, waitingFor, done });
  }

  #token(allocationId: string): string {
    return boxToken(this.#secret, allocationId);
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
