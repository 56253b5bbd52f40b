import type { LeaseResources } from "../lease/resources.ts";
import type { BackendRegistry } from "./backendRegistry.ts";
import type { Backend, BoxInfo } from "./backend.ts";

export interface OrphanSweepReport {
  readonly inspected: number;
  /** Boxes terminated, then strays deleted (`<Kind>/<name>`: a warm claim never bound). */
  readonly terminated: readonly string[];
  /** Orphans left in place this sweep, and why (a later sweep decides again). */
  readonly kept: readonly { readonly instanceId: string; readonly reason: string }[];
  readonly failed: readonly { readonly instanceId: string; readonly error: string }[];
}

/** What the sweep knows of an orphan's lease, read in one statement. */
interface LeaseView {
  readonly id: string;
  /** Locked by a transition: decided on the next sweep, never guessed. */
  readonly busy: boolean;
  readonly epoch: number | null;
  readonly instance_id: string | null;
  readonly suspended_instance_id: string | null;
  readonly adoptable_allocation: string | null;
  /** Whether the lease's archive covers its workspace generation (every admitted write). */
  readonly archive_covers: boolean | null;
}

/**
 * Terminates boxes no lease records: a spawner that died between create and record leaves one,
 * and so does a box its lease gave up (lost, replaced). A box is an orphan when it is older than
 * the warming timeout (its spawner's whole budget) and no lease names it as its instance (or,
 * cold, as the box its drain suspended), or holds its allocation intent while warming (a
 * successor spawner is about to adopt it; on a cold lease the intent is only a hint, and a later
 * create of the same allocation makes a fresh box).
 *
 * An orphan's disk is deleted with it, so the sweep asks first whether it can hold data nothing
 * else has: a box that never took an admitted write (every persistable write is admitted with
 * the instance it goes to) holds none and goes; one that did goes only once its lease's archive
 * covers the lease's workspace generation, and until then is kept and reported. Deletes are
 * fenced at the lease's epoch, read under the same lock that judged the box, so a spawner that
 * took the lease meanwhile (a newer epoch) and stamped the box keeps it.
 *
 * The lease rows are read with SKIP LOCKED. Every configured backend's inventory is swept, each
 * box terminated by the backend that reported it; an inventory lists only this installation's
 * boxes, so a box of another Berth sharing the backend is never touched.
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
    const leases = await this.#leasesOf(boxes);
    const written = await this.#boxesWithWrites(boxes);
    const terminated: string[] = [];
    const kept: { instanceId: string; reason: string }[] = [];
    const failed: { instanceId: string; error: string }[] = [];
    for (const { backend, box } of found) {
      const lease = leases.get(box.metadata.leaseId);
      const verdict = judge(box, lease, written.has(box.instanceId));
      if (verdict.kind === "recorded") continue;
      if (verdict.kind === "keep") {
        kept.push({ instanceId: box.instanceId, reason: verdict.reason });
        continue;
      }
      try {
        await backend.terminate(
          box.instanceId,
          verdict.epoch === undefined ? undefined : { epoch: verdict.epoch },
        );
        terminated.push(box.instanceId);
      } catch (error) {
        failed.push({
          instanceId: box.instanceId,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    for (const [, backend] of this.#backends.entries()) {
      const strays = await backend.sweepStrays?.(new Date(horizon));
      terminated.push(...(strays?.deleted ?? []));
      failed.push(...(strays?.failed ?? []));
    }
    return { inspected: boxes.length, terminated, kept, failed };
  }

  /** The boxes' leases (absent: the lease is gone), each judged under FOR SHARE SKIP LOCKED. */
  async #leasesOf(boxes: readonly BoxInfo[]): Promise<Map<string, LeaseView>> {
    if (boxes.length === 0) return new Map();
    const leaseIds = [...new Set(boxes.map((box) => box.metadata.leaseId))];
    const rows = await this.#resources.db.$queryRaw<LeaseView[]>`
      WITH free AS (
        SELECT id, epoch, instance_id, suspended_instance_id,
               CASE WHEN liveness = 'warming' THEN allocation_id END AS adoptable_allocation,
               COALESCE(archive_generation >= workspace_generation, workspace_generation = 0)
                 AS archive_covers
          FROM sandbox_leases
         WHERE id = ANY(${leaseIds}::uuid[]) FOR SHARE SKIP LOCKED)
      SELECT l.id, f.id IS NULL AS busy, f.epoch, f.instance_id, f.suspended_instance_id,
             f.adoptable_allocation, f.archive_covers
        FROM sandbox_leases l LEFT JOIN free f ON f.id = l.id
       WHERE l.id = ANY(${leaseIds}::uuid[])`;
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** Which of the boxes ever took an admitted write (so their disks may hold data). */
  async #boxesWithWrites(boxes: readonly BoxInfo[]): Promise<Set<string>> {
    if (boxes.length === 0) return new Set();
    const rows = await this.#resources.db.$queryRaw<{ instance_id: string }[]>`
      SELECT DISTINCT instance_id FROM mutation_admissions
       WHERE lease_id = ANY(${boxes.map((box) => box.metadata.leaseId)}::uuid[])
         AND instance_id = ANY(${boxes.map((box) => box.instanceId)}::text[])`;
    return new Set(rows.map((row) => row.instance_id));
  }
}

type Verdict =
  | { readonly kind: "recorded" }
  | { readonly kind: "keep"; readonly reason: string }
  | { readonly kind: "delete"; readonly epoch: number | undefined };

function judge(box: BoxInfo, lease: LeaseView | undefined, tookWrites: boolean): Verdict {
  // Its lease is gone (its workspace with it): nothing records it, nothing can adopt it.
  if (lease === undefined) return { kind: "delete", epoch: undefined };
  if (
    lease.busy ||
    lease.instance_id === box.instanceId ||
    lease.suspended_instance_id === box.instanceId ||
    lease.adoptable_allocation === box.metadata.allocationId
  )
    return { kind: "recorded" };
  if (tookWrites && lease.archive_covers !== true) {
    return {
      kind: "keep",
      reason: "it took admitted writes its lease's archive does not yet cover",
    };
  }
  return { kind: "delete", epoch: lease.epoch ?? undefined };
}
