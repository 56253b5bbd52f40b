import { randomUUID } from "node:crypto";
import { z } from "zod";
import { callLeaseFunction, Prisma } from "../lease/leaseStore.ts";
import type { LeaseResources } from "../lease/resources.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { CaptureResult } from "../reaper/drainPort.ts";
import type { WorkspaceArchiver } from "./workspaceArchiver.ts";

export interface CheckpointOptions {
  readonly resources: LeaseResources;
  readonly archiver: WorkspaceArchiver;
  /** A lease is checkpointed once no write was admitted for this long... */
  readonly quietMs?: number;
  /** ...or once its oldest unarchived write is this old, quiet or not (at least `quietMs`). */
  readonly maxMs?: number;
  /** How long a claim lasts: past it, another worker may take the checkpoint over. */
  readonly claimTtlMs?: number;
  readonly batch?: number;
}

export interface CheckpointReport {
  readonly leaseId: string;
  readonly result: CaptureResult["kind"];
  readonly detail?: string;
}

const optionsSchema = z
  .object({
    quietMs: z.number().int().min(0).default(30_000),
    maxMs: z
      .number()
      .int()
      .min(0)
      .default(5 * 60_000),
    claimTtlMs: z
      .number()
      .int()
      .positive()
      .default(10 * 60_000),
    batch: z.number().int().min(1).max(100).default(8),
  })
  .refine((options) => options.maxMs >= options.quietMs, {
    path: ["maxMs"],
    error: "must be at least quietMs",
  });

/**
 * The periodic checkpoint: captures every lease with a live box — warm, or draining within its
 * idle grace (a session driven by API calls drains between them) — whose workspace moved past
 * its archive, once its writes have gone quiet for `quietMs`, or once its oldest unarchived
 * write is `maxMs` old (a steady trickle is never quiet). A write in flight holds it either way:
 * a capture taken under it could not be published. So `archiveComplete` turns true soon after
 * each write, and a lost box costs at most the writes of that window.
 *
 * A checkpoint never acts on the lease: no holder, no re-arm, no change of its liveness or
 * deadline; a draining lease drains on time. It only publishes through the archive CAS (same
 * epoch, instance and generation, every write settled). Claims are SKIP LOCKED with a TTL, so
 * any number of workers checkpoint each lease once; and a lease the reaper is draining is never
 * claimed, nor claimed by the reaper while a checkpoint holds it (the SQL functions), so no
 * capture of a lease is published after a later one of the same lease.
 */
export class CheckpointSystem {
  readonly #resources: LeaseResources;
  readonly #archiver: WorkspaceArchiver;
  readonly #options: z.infer<typeof optionsSchema>;

  constructor(options: CheckpointOptions) {
    this.#resources = options.resources;
    this.#archiver = options.archiver;
    this.#options = optionsSchema.parse({
      quietMs: options.quietMs,
      maxMs: options.maxMs,
      claimTtlMs: options.claimTtlMs,
      batch: options.batch,
    });
  }

  /** Claims up to one batch of due leases and checkpoints them one after another. */
  async sweepOnce(): Promise<CheckpointReport[]> {
    const claimId = randomUUID();
    const now = await this.#resources.clock.now();
    const { claimTtlMs, quietMs, maxMs, batch } = this.#options;
    const rows = await callLeaseFunction(
      this.#resources.db,
      Prisma.sql`berth_lease_claim_checkpoints(${now}::timestamptz, ${claimId}::uuid,
        ${claimTtlMs}::int, ${quietMs}::int, ${maxMs}::int, ${batch}::int)`,
    );
    const reports: CheckpointReport[] = [];
    for (const lease of rows.flatMap((row) => (row.lease === null ? [] : [row.lease]))) {
      reports.push(await this.#checkpoint(lease, claimId));
    }
    return reports;
  }

  async #checkpoint(lease: LeaseSnapshot, claimId: string): Promise<CheckpointReport> {
    try {
      const result = await this.#archiver.capture(lease, { actor: "checkpoint" });
      const detail =
        result.kind === "refused" || result.kind === "unavailable" ? result.reason : undefined;
      return {
        leaseId: lease.id,
        result: result.kind,
        ...(detail === undefined ? {} : { detail }),
      };
    } finally {
      // Released at once, published or not: a reaper waiting to drain this lease may claim it.
      await this.#resources.db.$executeRaw`
        UPDATE sandbox_leases SET checkpoint_claim_id = NULL, checkpoint_claim_expires_at = NULL
         WHERE id = ${lease.id}::uuid AND checkpoint_claim_id = ${claimId}::uuid`;
    }
  }
}
