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
   * Draining leases past their grace with no holders. The rows stay locked for the caller's
   * transaction: call it inside the transaction that drains them.
   */
  async listDrainable(limit: number = DEFAULT_BATCH): Promise<LeaseSnapshot[]> {
    const now = await this.#resources.clock.now();
    const rows = await callLeaseFunction(
      this.#resources.db,
      Prisma.sql`berth_lease_list_drainable(${now}::timestamptz, ${limit}::int)`,
    );
    return rows.flatMap((row) => (row.lease === null ? [] : [row.lease]));
  }
}
