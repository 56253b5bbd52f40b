import type { LeaseResources } from "../lease/resources.ts";
import type { BackendRegistry } from "./backendRegistry.ts";
import type { Backend, BoxInfo } from "./backend.ts";

export interface OrphanSweepReport {
  readonly inspected: number;
  readonly terminated: readonly string[];
  readonly failed: readonly { readonly instanceId: string; readonly error: string }[];
}

/**
 * Terminates boxes no lease records: a spawner that died between create and record leaves one.
 * A box is an orphan when it is older than the warming timeout (its spawner's whole budget) and
 * no lease names it as its instance (or, cold, as the box its drain suspended), or holds its allocation intent while warming (a successor
 * spawner is about to adopt it; on a cold lease the intent is only a hint, and a later create of
 * the same allocation makes a fresh box). The lease rows are read with SKIP LOCKED: a lease in the middle of a
 * transition is decided on the next sweep, never guessed. Every configured backend's inventory
 * is swept, each box terminated by the backend that reported it; an inventory lists only this
 * installation's boxes, so a box of another Berth sharing the backend is never touched.
 */
export class OrphanSweepSystem {
  readonly #resources: LeaseResources;
  readonly #backends: BackendRegistry;

  constructor(options: { resources: LeaseResources; backends: BackendRegistry }) {
    this.#resources = options.resources;
    this.#backends = options.backends;
  }

  async sweepOnce(): Promise<OrphanSweepReport> {
    const now = await this.#resources.clock.now();
    const horizon = now.getTime() - this.#resources.config.warmingTimeoutMs;
    const found: { readonly backend: Backend; readonly box: BoxInfo }[] = [];
    for (const [, backend] of this.#backends.entries()) {
      for (const box of await backend.inventory()) {
        if (box.state !== "gone" && box.createdAt.getTime() <= horizon)
          found.push({ backend, box });
      }
    }
    const boxes = found.map(({ box }) => box);
    const recorded = await this.#recordedBy(boxes);
    const terminated: string[] = [];
    const failed: { instanceId: string; error: string }[] = [];
    for (const { backend, box } of found) {
      if (recorded.has(box.instanceId)) continue;
      try {
        await backend.terminate(box.instanceId);
        terminated.push(box.instanceId);
      } catch (error) {
        failed.push({
          instanceId: box.instanceId,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return { inspected: boxes.length, terminated, failed };
  }

  /** The boxes some lease still records (or whose lease row is busy: not ours to judge now). */
  async #recordedBy(boxes: readonly BoxInfo[]): Promise<Set<string>> {
    if (boxes.length === 0) return new Set();
    const leaseIds = boxes.map((box) => box.metadata.leaseId);
    const rows = await this.#resources.db.$queryRaw<
      {
        id: string;
        busy: boolean;
        instance_id: string | null;
        suspended_instance_id: string | null;
        adoptable_allocation: string | null;
      }[]
    >`
      WITH free AS (
        SELECT id, instance_id, suspended_instance_id,
               CASE WHEN liveness = 'warming' THEN allocation_id END AS adoptable_allocation
          FROM sandbox_leases
         WHERE id = ANY(${leaseIds}::uuid[]) FOR SHARE SKIP LOCKED)
      SELECT l.id, f.id IS NULL AS busy, f.instance_id, f.suspended_instance_id, f.adoptable_allocation
        FROM sandbox_leases l LEFT JOIN free f ON f.id = l.id
       WHERE l.id = ANY(${leaseIds}::uuid[])`;
    const recorded = new Set<string>();
    for (const box of boxes) {
      const row = rows.find((lease) => lease.id === box.metadata.leaseId);
      if (row === undefined) continue; // its lease is gone: nothing records it
      if (
        row.busy ||
        row.instance_id === box.instanceId ||
        row.suspended_instance_id === box.instanceId ||
        row.adoptable_allocation === box.metadata.allocationId
      ) {
        recorded.add(box.instanceId);
      }
    }
    return recorded;
  }
}
