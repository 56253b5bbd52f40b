import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { LeaseResources } from "../lease/resources.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import { LeaseSweepSystem } from "../lease/sweepSystem.ts";
import { WarmingSystem } from "../lease/warmingSystem.ts";
import type { CaptureResult, DrainPort } from "./drainPort.ts";

/** How one lease's drain ended in a sweep. */
export type DrainResult =
  | "cold"
  /** Capture unavailable or failed, or writes still in flight: still draining, retried next sweep. */
  | "deferred"
  /** The lease moved on (re-armed, superseded) while we worked: the box was left running. */
  | "superseded";

export interface SweepReport {
  readonly expiredWarming: number;
  /** Suspended boxes idle past their TTL, forgotten by their lease and deleted (or left, failed, to the orphan sweep). */
  readonly deletedSuspended: readonly { readonly instanceId: string; readonly error?: string }[];
  readonly reapedHolders: number;
  readonly drains: readonly {
    readonly leaseId: string;
    readonly result: DrainResult;
    readonly detail?: string;
  }[];
}

export interface ReaperOptions {
  readonly resources: LeaseResources;
  readonly drainPort: DrainPort;
  /** How long a drain claim lasts before another reaper may take the lease over. */
  readonly claimTtlMs?: number;
  /**
   * How long a suspended box (a drain that kept its disk) may stay idle before the sweep deletes
   * it, once the archive covers every admitted write (BERTH_KUBE_SUSPENDED_TTL_MS). Unset keeps
   * suspended boxes until their lease is next acquired.
   */
  readonly suspendedTtlMs?: number;
}

const DEFAULT_CLAIM_TTL_MS = 10 * 60_000;

interface Fence {
  readonly workspaceId: string;
  readonly leaseId: string;
  readonly expectedEpoch: number;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One reaper pass over every lease: expire warming, reap silent holders (which drains empty warm
 * leases), then drain what is past its grace: capture, publish, stop, cold. Any number of
 * reapers may sweep at once: every batch is claimed with SKIP LOCKED, so a lease is drained by
 * exactly one of them. A box is never stopped without a published capture, unless it is already
 * gone, its workspace never admitted a write, or it never went warm (there is nothing to keep).
 */
export class ReaperSystem {
  readonly #sweeps: LeaseSweepSystem;
  readonly #warming: WarmingSystem;
  readonly #drainPort: DrainPort;
  readonly #claimTtlMs: number;
  readonly #suspendedTtlMs: number | undefined;

  constructor(options: ReaperOptions) {
    this.#sweeps = new LeaseSweepSystem(options.resources);
    this.#warming = new WarmingSystem(options.resources);
    this.#drainPort = options.drainPort;
    this.#claimTtlMs = z
      .number()
      .int()
      .positive()
      .parse(options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS);
    this.#suspendedTtlMs = z.number().int().positive().optional().parse(options.suspendedTtlMs);
  }

  async sweepOnce(): Promise<SweepReport> {
    const expired = await this.#sweeps.expireWarming();
    const { reaped } = await this.#sweeps.reapHolders();
    const claimed = await this.#sweeps.claimDrainable({
      claimId: randomUUID(),
      claimTtlMs: this.#claimTtlMs,
    });
    const drains = [];
    for (const lease of claimed) drains.push({ leaseId: lease.id, ...(await this.#drain(lease)) });
    const deletedSuspended = await this.#deleteIdleSuspended();
    return { expiredWarming: expired.length, reapedHolders: reaped, drains, deletedSuspended };
  }

  /**
   * Suspended boxes idle past the TTL whose archive covers the workspace: the lease forgets each
   * (so no spawner resumes it meanwhile), then it is deleted with its disk. A delete that fails
   * leaves a box no lease records, which the orphan sweep removes.
   */
  async #deleteIdleSuspended(): Promise<SweepReport["deletedSuspended"]> {
    const port = this.#drainPort;
    if (this.#suspendedTtlMs === undefined || port.deleteSuspended === undefined) return [];
    const forgotten = await this.#sweeps.forgetIdleSuspended({ ttlMs: this.#suspendedTtlMs });
    const deleted = [];
    for (const { instanceId, lease } of forgotten) {
      try {
        await port.deleteSuspended(lease, instanceId);
        deleted.push({ instanceId });
      } catch (error) {
        deleted.push({ instanceId, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return deleted;
  }

  async #drain(lease: LeaseSnapshot): Promise<{ result: DrainResult; detail?: string }> {
    const fence = { workspaceId: lease.workspaceId, leaseId: lease.id, expectedEpoch: lease.epoch };
    if (lease.instanceId === null)
      return this.#cold({ ...fence, instanceId: null, providerMissing: false });
    // Every persistable write is admitted first (it advances the generation), so a workspace
    // that never admitted one holds nothing to keep: stop it without a capture. Nor does a box
    // that never went warm (its warming expired, or its spawner could not stop it: the provider
    // is still `creating`): writes are admitted only on a warm box, and its tree is empty or a
    // restore cut short — captured, it would be published over the lease's true archive.
    const neverWarm = lease.providerStatus === "creating";
    if (neverWarm || (lease.workspaceGeneration === 0 && lease.archiveStatus === "none"))
      return this.#stopOrDefer({
        fence,
        lease,
        step: "stop",
        stop: () => this.#drainPort.stop(lease).then(() => "terminated" as const),
      });
    let capture: CaptureResult;
    try {
      capture = await this.#drainPort.capture(lease, "reaper");
    } catch (error) {
      capture = { kind: "unavailable", reason: `capture failed: ${message(error)}` };
    }
    switch (capture.kind) {
      case "unavailable":
        // The archive already holds every admitted write: nothing is lost by parking without
        // a capture. A drain whose park failed after its capture published lands here: its box
        // may already be suspended, and a capture of it would never succeed.
        if (lease.archiveComplete) return this.#park(fence, lease);
        await this.#sweeps.releaseDrainClaim(lease);
        return { result: "deferred", detail: capture.reason };
      case "refused": {
        await this.#sweeps.releaseDrainClaim(lease);
        const retryLater =
          capture.reason === "admissions_unsettled" ||
          capture.reason === "workspace_changed_during_capture";
        return { result: retryLater ? "deferred" : "superseded", detail: capture.reason };
      }
      case "provider_missing":
        return this.#cold({ ...fence, instanceId: lease.instanceId, providerMissing: true });
      case "published":
        return this.#park(fence, lease);
    }
  }

  /** Suspended (its disk kept, the lease remembering it) where the backend keeps disks. */
  #park(fence: Fence, lease: LeaseSnapshot): Promise<{ result: DrainResult; detail?: string }> {
    const park = this.#drainPort.park?.bind(this.#drainPort);
    return this.#stopOrDefer({
      fence,
      lease,
      step: "park",
      stop: () =>
        park === undefined
          ? this.#drainPort.stop(lease).then(() => "terminated" as const)
          : park(lease),
    });
  }

  /**
   * Stops (or parks) the box, then the lease goes cold. A stop that fails leaves the lease
   * draining with its box, the claim released: the next sweep drains it again (a failure
   * thrown from here would end the sweep and keep the claim until its TTL).
   */
  async #stopOrDefer(input: {
    fence: Fence;
    lease: LeaseSnapshot;
    step: "stop" | "park";
    stop: () => Promise<"suspended" | "terminated">;
  }): Promise<{ result: DrainResult; detail?: string }> {
    const { fence, lease, step, stop } = input;
    let stopped;
    try {
      stopped = await stop();
    } catch (error) {
      await this.#sweeps.releaseDrainClaim(lease);
      return { result: "deferred", detail: `${step} failed: ${message(error)}` };
    }
    return this.#cold({
      ...fence,
      instanceId: lease.instanceId,
      providerMissing: false,
      suspended: stopped === "suspended",
    });
  }

  async #cold(input: {
    workspaceId: string;
    leaseId: string;
    expectedEpoch: number;
    instanceId: string | null;
    providerMissing: boolean;
    suspended?: boolean;
  }): Promise<{ result: DrainResult; detail?: string }> {
    const cold = await this.#warming.confirmDrainCold({ ...input, actor: "reaper" });
    return cold.outcome === "cold"
      ? { result: "cold" }
      : { result: "superseded", detail: cold.reason };
  }
}
