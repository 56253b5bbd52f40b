import { randomUUID } from "node:crypto";
import type { LeaseResources } from "../lease/resources.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import { WarmingSystem } from "../lease/warmingSystem.ts";
import type { Backend } from "./backend.ts";
import { waitForExecReady } from "./readiness.ts";
import { SpawnError } from "./spawnError.ts";

export interface SpawnerOptions {
  readonly resources: LeaseResources;
  readonly backend: Backend;
  /** How long a new box may take to answer `true`. */
  readonly readinessTimeoutMs?: number;
}

export interface EstablishedBox {
  readonly instanceId: string;
  /** The lease, warm at the epoch after the spawner's. */
  readonly lease: LeaseSnapshot;
}

/**
 * The one cold → warming owner path: record the allocation intent, create the box, record it
 * under the same epoch, verify exec readiness, commit warm. On any failure the box this call
 * created is terminated first; the lease is then failed (cold, epoch+1) — unless a newer epoch
 * owns it (the row is left alone) or termination could not be confirmed (the row keeps the
 * instance so the reaper stops it). Never publishes warm on a guess.
 */
export class SpawnerSystem {
  readonly #warming: WarmingSystem;
  readonly #backend: Backend;
  readonly #readinessTimeoutMs: number;

  constructor(options: SpawnerOptions) {
    this.#warming = new WarmingSystem(options.resources);
    this.#backend = options.backend;
    this.#readinessTimeoutMs = options.readinessTimeoutMs ?? 30_000;
  }

  /** Establishes a warm box for a lease this caller acquired as `spawner`. */
  async establish(spawned: LeaseSnapshot): Promise<EstablishedBox> {
    const fence = {
      workspaceId: spawned.workspaceId,
      leaseId: spawned.id,
      expectedEpoch: spawned.epoch,
    };
    if (spawned.archiveStatus !== "none") {
      await this.#warming.failWarming({
        ...fence,
        terminated: true,
        reason: "archive_restore_unavailable",
      });
      throw new SpawnError({
        code: "archive_restore_unavailable",
        message:
          "This lease has a workspace archive and restoring archives is not available yet; nothing was created.",
      });
    }

    const intent = await this.#warming.recordAllocation({ ...fence, allocationId: randomUUID() });
    if (intent.outcome === "lost") throw superseded(intent.lease, intent.reason);
    const allocationId = intent.lease.allocationId ?? "";

    let instanceId: string;
    try {
      ({ instanceId } = await this.#backend.create({
        metadata: {
          workspaceId: spawned.workspaceId,
          leaseId: spawned.id,
          epoch: spawned.epoch,
          allocationId,
        },
      }));
    } catch (error) {
      const failed = await this.#warming.failWarming({
        ...fence,
        terminated: true,
        reason: "create_failed",
      });
      throw new SpawnError({
        code: "create_failed",
        message: `The backend could not create a box: ${message(error)}`,
        lease: failed.lease,
        cause: error,
      });
    }

    const recorded = await this.#warming.recordCreated({ ...fence, allocationId, instanceId });
    if (recorded.outcome === "lost") {
      await this.#terminateOrLeave(instanceId);
      throw superseded(recorded.lease, recorded.reason);
    }

    try {
      await waitForExecReady({
        client: await this.#backend.connect(instanceId),
        timeoutMs: this.#readinessTimeoutMs,
      });
    } catch (error) {
      if (!(await this.#terminateOrLeave(instanceId))) {
        throw new SpawnError({
          code: "termination_unconfirmed",
          message: `Box ${instanceId} failed readiness and could not be stopped; the reaper will.`,
          lease: recorded.lease,
          cause: error,
        });
      }
      const failed = await this.#warming.failWarming({
        ...fence,
        terminated: true,
        reason: "readiness_failed",
      });
      throw new SpawnError({
        code: "readiness_failed",
        message: `Box ${instanceId} never became ready: ${message(error)}`,
        lease: failed.lease,
        cause: error,
      });
    }

    const commit = await this.#warming.commitWarm({ ...fence, instanceId });
    if (commit.outcome === "lost") {
      await this.#terminateOrLeave(instanceId);
      throw superseded(commit.lease, commit.reason);
    }
    return { instanceId, lease: commit.lease };
  }

  /** True when the box is confirmed gone; false leaves it (and its lease record) for the reaper. */
  async #terminateOrLeave(instanceId: string): Promise<boolean> {
    try {
      await this.#backend.terminate(instanceId);
      return true;
    } catch {
      return false;
    }
  }
}

function superseded(lease: LeaseSnapshot | null, reason: string): SpawnError {
  return new SpawnError({
    code: "superseded",
    message: `A newer epoch owns this lease (${reason}); nothing of ours remains.`,
    lease,
  });
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
