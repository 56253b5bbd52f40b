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
  /** A lease is checkpointed once no write was admitted for this long. */
  readonly quietMs?: number;
  /** How long a claim lasts: past it, another worker may take the checkpoint over. */
  readonly claimTtlMs?: number;
  readonly batch?: number;
}

export interface CheckpointReport {
  readonly leaseId: string;
  readonly result: CaptureResult["kind"];
  readonly detail?: string;
}

const optionsSchema = z.object({
  quietMs: z.number().int().min(0).default(30_000),
  claimTtlMs: z
    .number()
    .int()
    .positive()
    .default(10 * 60_000),
  batch: z.number().int().min(1).max(100).default(8),
});

/**
 * The periodic checkpoint: captures warm leases whose workspace moved past its archive once
 * their writes have gone quiet, so `archiveComplete` becomes true after writes stop and a lost
 * box costs at most the last quiet period. Claims are SKIP LOCKED with a TTL, so any number of
 * workers checkpoint each lease once.
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
      claimTtlMs: options.claimTtlMs,
      batch: options.batch,
    });
  }

  async sweepOnce(): Promise<CheckpointReport[]> {
    const claimId = randomUUID();
    const now = await this.#resources.clock.now();
    const rows = await callLeaseFunction(
      this.#resources.db,
      Prisma.sql`berth_lease_claim_checkpoints(${now}::timestamptz, ${claimId}::uuid,
        ${this.#options.claimTtlMs}::int, ${this.#options.quietMs}::int, ${this.#options.batch}::int)`,
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
      await this.#resources.db.$executeRaw`
        UPDATE sandbox_leases SET checkpoint_claim_id = NULL, checkpoint_claim_expires_at = NULL
         WHERE id = ${lease.id}::uuid AND checkpoint_claim_id = ${claimId}::uuid`;
    }
  }
}
