/**
 * How a create makes its box's Sandbox: taken from the operator's warm pool while it has a Ready
 * member (warmClaim.ts), else made by Berth from the profile's template (allocation.ts) with its
 * token in a Secret of its own. Either way the Sandbox carries the same labels and allocation
 * annotations, so everything after the create treats the two alike.
 */
import type { BoxMetadata } from "../../spawner/backend.ts";
import type { ExecutionProfile } from "../../spawner/executionProfile.ts";
import { allocateSandbox } from "./allocation.ts";
import { boxPodTemplate, boxVolumeClaims } from "./boxPodTemplate.ts";
import { boxToken, ensureTokenSecret } from "./boxTokenSecret.ts";
import type { KubeClient } from "./kubeClient.ts";
import { retrying } from "./kubeRetry.ts";
import { SANDBOX_CLAIM, type KubeObject } from "./kubeObjects.ts";
import type { Operation } from "./operation.ts";
import { ensurePoolKeySecret, poolKey } from "./poolKeySecret.ts";
import { readBoxTemplate } from "./sandboxTemplate.ts";
import { sandboxNameFor } from "./sandboxNames.ts";
import { readyPoolMembers } from "./warmPool.ts";
import { bindWarmClaim, postWarmClaim, warmClaimName, type WarmClaimRequest } from "./warmClaim.ts";

/** How long the delete of a failed create's warm claim may take. */
const RELEASE_MS = 10_000;

/** What every create knows before it makes anything. */
export interface BoxRequest {
  readonly installationId: string;
  readonly sandboxGroupId: string;
  readonly metadata: BoxMetadata;
  readonly profile: ExecutionProfile;
}

/** The box's Sandbox, and whether this call made it or found its allocation's. */
export interface MadeBox {
  readonly outcome: "created" | "adopted";
  readonly sandbox: KubeObject;
}

export interface BoxMakerOptions {
  readonly client: KubeClient;
  readonly secret: string;
  readonly boxdPort: number;
  readonly pollIntervalMs: number;
  readonly warmPool: string | undefined;
  /** The backend's fenced terminate: how a box this create made and could not finish goes. */
  readonly terminate: (sandboxName: string, epoch: number) => Promise<void>;
}

export class BoxMaker {
  /** The pool key's Secret, made once per process (poolKeySecret.ts). */
  #poolKeyMade: Promise<void> | undefined;

  constructor(private readonly $: BoxMakerOptions) {}

  async make(op: Operation, box: BoxRequest): Promise<MadeBox> {
    const pool = this.$.warmPool;
    return pool !== undefined && (await this.#poolHasMembers(op, box.installationId, pool))
      ? this.#takeFromPool(op, { ...box, pool })
      : this.#allocate(op, box);
  }

  /** A Sandbox of Berth's own: made from the profile's template, its token in its own Secret. */
  async #allocate(op: Operation, box: BoxRequest): Promise<MadeBox> {
    const { metadata } = box;
    const sandboxName = sandboxNameFor({
      sandboxGroupId: box.sandboxGroupId,
      allocationId: metadata.allocationId,
    });
    // Read at every create: a box runs what its template says now. Nothing is made before.
    const template = await this.#read(op, () =>
      readBoxTemplate(this.$.client, op, box.profile.template),
    );
    const allocation = await allocateSandbox(this.$.client, op, {
      ...box,
      podTemplate: boxPodTemplate({
        template,
        profile: box.profile,
        identity: { kind: "box", sandboxName },
        boxdPort: this.$.boxdPort,
      }),
      volumeClaimTemplates: boxVolumeClaims(template),
      // Fenced from birth: the creating spawner's epoch.
      holderEpoch: metadata.epoch,
      retryIntervalMs: this.$.pollIntervalMs,
    });
    // After the Sandbox (it owns the Secret); its pod waits for it as a kubelet does.
    try {
      await ensureTokenSecret(this.$.client, op, {
        sandbox: allocation.sandbox,
        installationId: box.installationId,
        token: boxToken(this.$.secret, metadata.allocationId),
      });
    } catch (error) {
      // A box this call made and could not finish is deleted now: left for the orphan sweep,
      // it would run beside the box its group's next allocation makes. A delete that fails
      // too leaves it to that sweep (labelled, and no lease records it); the answer is still
      // why the create failed.
      if (allocation.outcome === "created")
        await this.$.terminate(sandboxName, metadata.epoch).catch(() => undefined);
      throw error;
    }
    return allocation;
  }

  /**
   * Whether the warm pool has a Ready member to hand out. The pool key's Secret is made first
   * (once per process): the pool's pods mount it, and start only once it is there.
   */
  async #poolHasMembers(op: Operation, installationId: string, pool: string): Promise<boolean> {
    this.#poolKeyMade ??= ensurePoolKeySecret(this.$.client, op, {
      installationId,
      key: poolKey(this.$.secret, installationId),
    }).catch((error: unknown) => {
      this.#poolKeyMade = undefined;
      throw error;
    });
    await this.#poolKeyMade;
    return (await this.#read(op, () => readyPoolMembers(this.$.client, op, pool))) > 0;
  }

  /**
   * A box taken from the warm pool (warmClaim.ts). A claim this call may have made and could
   * not finish with is deleted, once, whatever ended it (a refused or unanswered POST, an
   * aborted caller, a bind that failed): with it goes the member it took, which no lease records.
   */
  async #takeFromPool(
    op: Operation,
    box: BoxRequest & { readonly pool: string },
  ): Promise<MadeBox> {
    const request: WarmClaimRequest = { ...box, intervalMs: this.$.pollIntervalMs };
    let mine = true;
    try {
      const posted = await postWarmClaim(this.$.client, op, request);
      mine = posted.outcome === "created";
      const sandbox = await bindWarmClaim(this.$.client, op, {
        request,
        claim: posted.claim,
        holderEpoch: box.metadata.epoch,
      });
      return { outcome: posted.outcome, sandbox };
    } catch (error) {
      if (mine)
        await this.#releaseFailedClaim(
          warmClaimName({
            sandboxGroupId: box.sandboxGroupId,
            allocationId: box.metadata.allocationId,
          }),
        );
      throw error;
    }
  }

  /** One DELETE under an operation of its own: the create's may be spent or aborted. */
  async #releaseFailedClaim(name: string): Promise<void> {
    const op = this.$.client.operation({ label: `release claim ${name}`, timeoutMs: RELEASE_MS });
    // Not deleted: left to the orphan sweep (labelled, and no lease records it); the answer is
    // still why the create failed.
    await retrying(
      op,
      () => this.$.client.delete(op, { kind: SANDBOX_CLAIM, name }),
      this.$.pollIntervalMs,
    ).catch(() => undefined);
  }

  /** A read, sent again past a throttled or unavailable answer within the operation's deadline. */
  #read<T>(op: Operation, read: () => Promise<T>): Promise<T> {
    return retrying(op, read, this.$.pollIntervalMs);
  }
}
