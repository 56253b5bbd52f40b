import { turnHolderTtlMs } from "./config.ts";
import { callLeaseFunction, Prisma } from "./leaseStore.ts";
import { checkedResources, type LeaseResources } from "./resources.ts";
import type { LeaseSnapshot } from "./snapshot.ts";

/** How many leases one sweep call locks; the reaper calls again until a batch comes back short. */
const DEFAULT_BATCH = 100;

export interface ExpiredWarming {
  /** cold: no box was recorded; draining: a box was, and it is now immediately drainable. */
  readonly to: "cold" | "draining";
  readonly lease: LeaseSnapshot;
}

/**
 * The sweeps the reaper runs. Each locks a bounded batch with FOR UPDATE SKIP LOCKED, so any
 * number of reaper replicas share the work and never process one lease twice in a sweep.
 */
export class LeaseSweepSystem {
  readonly #resources: LeaseResources;

  constructor(resources: LeaseResources) {
    this.#resources = checkedResources(resources);
  }

  /** Warming leases past their deadline: cold (epoch+1) without a box, draining (epoch+1) with one. */
  async expireWarming(limit: number = DEFAULT_BATCH): Promise<ExpiredWarming[]> {
    const now = await this.#resources.clock.now();
    const rows = await callLeaseFunction(
      this.#resources.db,
      Prisma.sql`berth_lease_expire_warming(${now}::timestamptz, ${limit}::int)`,
    );
    return rows.flatMap((row) =>
      row.lease === null
        ? []
        : [{ to: row.outcome === "cold" ? "cold" : "draining", lease: row.lease }],
    );
  }

  /**
   * Deletes holders whose owner went silent (viewer and direct after the viewer TTL, turn after
   * the turn horizon); warm leases left without holders start their idle grace.
   */
  async reapHolders(
    limit: number = DEFAULT_BATCH,
  ): Promise<{ reaped: number; leases: LeaseSnapshot[] }> {
    const { clock, config, db } = this.#resources;
    const now = await clock.now();
    const rows = await callLeaseFunction(
      db,
      Prisma.sql`berth_lease_reap_holders(${now}::timestamptz, ${config.viewerTtlMs}::int,
        ${turnHolderTtlMs(config)}::int, ${config.idleGraceMs}::int, ${limit}::int)`,
    );
    return {
      reaped: rows.reduce((sum, row) => sum + Number(row.reason ?? 0), 0),
      leases: rows.flatMap((row) => (row.lease === null ? [] : [row.lease])),
    };
  }

  /**
   * Claims up to `limit` draining leases past their grace with no holders for `claimId`. The
   * claim outlives the statement (a capture can take minutes) and expires after `claimTtlMs`, so
   * a reaper that died mid-drain is taken over; two live reapers never take one lease.
   */
  async claimDrainable(options: {
    claimId: string;
    claimTtlMs: number;
    limit?: number;
  }): Promise<LeaseSnapshot[]> {
    const now = await this.#resources.clock.now();
    const rows = await callLeaseFunction(
      this.#resources.db,
      Prisma.sql`berth_lease_claim_drainable(${now}::timestamptz, ${options.claimId}::uuid,
        ${options.claimTtlMs}::int, ${options.limit ?? DEFAULT_BATCH}::int)`,
    );
    return rows.flatMap((row) => (row.lease === null ? [] : [row.lease]));
  }

  /**
   * Asks each draining local lease whose box runs unisolated (or was recorded before isolation
   * was) to rotate: its drain becomes immediate and cannot be re-armed, so the reaper replaces
   * the box now. Run only where isolation works; a warm lease is asked once it drains (a request
   * on a live lease would fence every arrival until it went cold). Logs one 'rotate' event per
   * lease; a lease already asked is not asked again.
   */
  async requestUnisolatedRotations(limit: number = DEFAULT_BATCH): Promise<LeaseSnapshot[]> {
    const now = await this.#resources.clock.now();
    const rows = await callLeaseFunction(
      this.#resources.db,
      Prisma.sql`berth_lease_rotate_unisolated('reaper', ${now}::timestamptz, ${limit}::int)`,
    );
    return rows.flatMap((row) => (row.lease === null ? [] : [row.lease]));
  }

  /**
   * Cold leases whose suspended box has been idle for `ttlMs` and whose archive covers every
   * admitted write forget it (one statement, SKIP LOCKED); each comes back with the instance to
   * delete. Forgotten first, so no spawner can resume it while it is deleted.
   */
  async forgetIdleSuspended(options: {
    ttlMs: number;
    limit?: number;
  }): Promise<{ readonly instanceId: string; readonly lease: LeaseSnapshot }[]> {
    const now = await this.#resources.clock.now();
    const rows = await callLeaseFunction(
      this.#resources.db,
      Prisma.sql`berth_lease_forget_idle_suspended(${now}::timestamptz, ${options.ttlMs}::int,
        ${options.limit ?? DEFAULT_BATCH}::int)`,
    );
    return rows.flatMap((row) =>
      row.lease === null || row.reason === null
        ? []
        : [{ instanceId: row.reason, lease: row.lease }],
    );
  }

  /** Gives a claimed lease back (its drain was deferred), so the next sweep retries it. */
  async releaseDrainClaim(lease: { id: string; drainClaimId?: string | null }): Promise<void> {
    await this.#resources.db.$executeRaw`
      UPDATE sandbox_leases SET drain_claim_id = NULL, drain_claim_expires_at = NULL
       WHERE id = ${lease.id}::uuid AND drain_claim_id IS NOT DISTINCT FROM ${lease.drainClaimId ?? null}::uuid`;
  }
}
