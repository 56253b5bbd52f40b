import type { DbClientOrTx } from "@berth/db";
import { z } from "zod";
import type { CasOutcome } from "./errors.ts";
import type { LeaseSnapshot } from "./snapshot.ts";
import { epochSchema, idSchema, parseInput, ttlMsSchema } from "./inputs.ts";
import { callLeaseFunctionOnce, Prisma } from "./leaseStore.ts";
import { checkedResources, type LeaseResources } from "./resources.ts";
import { casOutcome } from "./warmingSystem.ts";

const fenceSchema = z.object({
  workspaceId: idSchema,
  leaseId: idSchema,
  expectedEpoch: epochSchema,
});
const attemptSchema = fenceSchema.extend({ rematerializationId: idSchema });
const revisionSchema = z.string().trim().min(1).max(200);
const verifyingSchema = attemptSchema.extend({ revision: revisionSchema });
const failSchema = attemptSchema.extend({
  failureCode: z.string().trim().min(1).max(96),
  retryable: z.boolean(),
});
/** A stored, verified capture's blob, as the archive store describes it. */
export const storedArchiveSchema = z.object({
  sizeBytes: z.number().int().nonnegative(),
  fileCount: z.number().int().nonnegative(),
  storageKey: z.string().min(1).max(512),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, { error: "must be a sha256 in hex" }),
});
export type StoredArchive = z.infer<typeof storedArchiveSchema>;
const publishSchema = fenceSchema.extend({
  instanceId: z.string().min(1),
  generation: z.number().int().nonnegative(),
  revision: revisionSchema,
  /** Null: publish only if the lease already holds this revision (nothing new is stored). */
  archive: storedArchiveSchema.nullable(),
  actor: z.string().min(1).default("reaper"),
});
const actorSchema = z.object({
  kind: z.enum(["user", "token", "system"]),
  id: z.string().trim().min(1).max(200),
});
const startFreshSchema = fenceSchema.extend({ actor: actorSchema });
const restoreSchema = fenceSchema.extend({
  instanceId: z.string().min(1).nullable(),
  /** The restore's fence claim (fenceRestore) when `instanceId` names a live box; else null. */
  claimId: idSchema.nullable().default(null),
  revision: revisionSchema,
  actor: actorSchema,
});
const fenceRestoreSchema = fenceSchema.extend({
  instanceId: z.string().min(1),
  claimId: idSchema,
  revision: revisionSchema,
  actor: z.string().trim().min(1).max(200),
});
const unfenceRestoreSchema = fenceSchema.extend({
  claimId: idSchema,
  actor: z.string().trim().min(1).max(200),
  reason: z.string().trim().min(1).max(96),
});

/** A published capture says whether the blob it was given is the one the lease now refers to. */
export type PublishOutcome =
  | {
      readonly outcome: "published";
      readonly lease: LeaseSnapshot;
      readonly stored: "new" | "existing";
    }
  | Extract<CasOutcome<"published">, { outcome: "lost" }>;

export type BeginRematerializationInput = z.input<typeof attemptSchema>;
export type MarkVerifyingInput = z.input<typeof verifyingSchema>;
export type FailRematerializationInput = z.input<typeof failSchema>;
export type PublishArchiveInput = z.input<typeof publishSchema>;
export type StartFreshInput = z.input<typeof startFreshSchema>;
export type RestoreRevisionInput = z.input<typeof restoreSchema>;
export type FenceRestoreInput = z.input<typeof fenceRestoreSchema>;
export type UnfenceRestoreInput = z.input<typeof unfenceRestoreSchema>;

/**
 * Restoring archives into new boxes, publishing captures, and the admin recovery actions.
 * Every call is one lease function: a CAS whose loss is a named outcome.
 */
export class RecoverySystem {
  readonly #resources: LeaseResources;

  constructor(resources: LeaseResources) {
    this.#resources = checkedResources(resources);
  }

  /**
   * Starts the one restore attempt of this warming epoch. `blocked` means the archive cannot be
   * trusted (incomplete or unverified): the lease is now cold and blocked, create nothing.
   */
  async beginRematerialization(
    input: BeginRematerializationInput,
  ): Promise<CasOutcome<"started" | "blocked">> {
    const a = parseInput(attemptSchema, input);
    return this.#call(
      (
        now,
      ) => Prisma.sql`berth_lease_begin_rematerialization(${a.workspaceId}::uuid, ${a.leaseId}::uuid,
        ${a.expectedEpoch}::int, ${a.rematerializationId}::uuid, ${now}::timestamptz)`,
      ["started", "blocked"],
    );
  }

  /** The box holds the restored tree and names its revision: it must be the selected one. */
  async markVerifying(input: MarkVerifyingInput): Promise<CasOutcome<"verifying">> {
    const a = parseInput(verifyingSchema, input);
    return this.#call(
      (now) => Prisma.sql`berth_lease_mark_verifying(${a.workspaceId}::uuid, ${a.leaseId}::uuid,
        ${a.expectedEpoch}::int, ${a.rematerializationId}::uuid, ${a.revision}, ${now}::timestamptz)`,
      ["verifying"],
    );
  }

  /** The restore failed and its box is terminated: cold at epoch+1, counted toward the retry budget. */
  async failRematerialization(input: FailRematerializationInput): Promise<CasOutcome<"failed">> {
    const a = parseInput(failSchema, input);
    return this.#call(
      (
        now,
      ) => Prisma.sql`berth_lease_fail_rematerialization(${a.workspaceId}::uuid, ${a.leaseId}::uuid,
        ${a.expectedEpoch}::int, ${a.rematerializationId}::uuid, ${a.failureCode}, ${a.retryable},
        ${now}::timestamptz)`,
      ["failed"],
    );
  }

  /**
   * Publishes a verified capture of generation g. Lost as `workspace_changed_during_capture` when
   * a write was admitted since g (capture again), `admissions_unsettled` while a write <= g is in
   * flight, `blob_required` when `archive` is null and the lease has no such revision. Published
   * with reason `deduplicated` when an equal revision won the race: the new blob is not used.
   */
  async publishArchive(
    input: PublishArchiveInput,
    /**
     * Publishes inside the caller's transaction, at a time it read before opening it: no other
     * connection is used meanwhile (on the embedded database one open transaction holds them all).
     */
    within?: { readonly tx: DbClientOrTx; readonly now: Date },
  ): Promise<PublishOutcome> {
    const a = parseInput(publishSchema, input);
    const now = within?.now ?? (await this.#resources.clock.now());
    const row = await callLeaseFunctionOnce(
      within?.tx ?? this.#resources.db,
      Prisma.sql`berth_lease_publish_archive(${a.workspaceId}::uuid, ${a.leaseId}::uuid,
        ${a.expectedEpoch}::int, ${a.instanceId}, ${a.generation}::int, ${a.revision},
        ${a.archive === null ? null : JSON.stringify(a.archive)}::jsonb, ${a.actor}, ${now}::timestamptz)`,
    );
    const outcome = casOutcome(row, ["published"]);
    if (outcome.outcome === "lost") return outcome;
    const stored = a.archive === null || row.reason === "deduplicated" ? "existing" : "new";
    return { ...outcome, stored };
  }

  /** Admin: gives up a blocked lease's workspace. Audited. */
  async startFresh(input: StartFreshInput): Promise<CasOutcome<"started_fresh">> {
    const a = parseInput(startFreshSchema, input);
    return this.#call(
      (now) => Prisma.sql`berth_lease_start_fresh(${a.workspaceId}::uuid, ${a.leaseId}::uuid,
        ${a.expectedEpoch}::int, ${a.actor.kind}, ${a.actor.id}, ${now}::timestamptz)`,
      ["started_fresh"],
    );
  }

  /**
   * Admin restore, step 1 for a live box: fences it under `claimId` at the expected epoch and
   * instance — draining past its grace, every holder gone, so no write is admitted and every
   * arrival is `fenced` until the restore ends — and keeps R from retention meanwhile. Lost as
   * stale_epoch, spawn_in_progress, restore_in_progress, drain_in_progress or
   * revision_not_found, changing nothing. The claim lasts `claimTtlMs`: a restore that dies
   * leaves the lease to the reaper once it expires.
   */
  async fenceRestore(
    input: FenceRestoreInput & { readonly claimTtlMs: number },
  ): Promise<CasOutcome<"fenced">> {
    const a = parseInput(fenceRestoreSchema, input);
    const ttl = parseInput(ttlMsSchema, input.claimTtlMs);
    return this.#call(
      (now) => Prisma.sql`berth_lease_fence_restore(${a.workspaceId}::uuid, ${a.leaseId}::uuid,
        ${a.expectedEpoch}::int, ${a.instanceId}, ${a.claimId}::uuid, ${a.revision}, ${ttl}::int,
        ${a.actor}, ${now}::timestamptz)`,
      ["fenced"],
    );
  }

  /**
   * Admin restore, when it cannot go on: gives the fence back (only its own claim, at its
   * epoch). The box keeps running idle — draining with a fresh grace — and the next arrival
   * re-arms it. Lost as fence_lost when the claim is no longer the restore's.
   */
  async unfenceRestore(input: UnfenceRestoreInput): Promise<CasOutcome<"unfenced">> {
    const a = parseInput(unfenceRestoreSchema, input);
    const grace = this.#resources.config.idleGraceMs;
    return this.#call(
      (now) => Prisma.sql`berth_lease_unfence_restore(${a.workspaceId}::uuid, ${a.leaseId}::uuid,
        ${a.expectedEpoch}::int, ${a.claimId}::uuid, ${grace}::int, ${a.actor}, ${a.reason},
        ${now}::timestamptz)`,
      ["unfenced"],
    );
  }

  /**
   * Admin: selects revision R — on a cold lease (`instanceId` null), or once the live box named
   * by `instanceId` was fenced under `claimId`, captured and stopped (fence_lost if the claim is
   * gone). Audited. Use RecoveryActions.restoreRevision, which fences and captures first.
   */
  async restoreRevision(input: RestoreRevisionInput): Promise<CasOutcome<"restored">> {
    const a = parseInput(restoreSchema, input);
    return this.#call(
      (now) => Prisma.sql`berth_lease_restore_revision(${a.workspaceId}::uuid, ${a.leaseId}::uuid,
        ${a.expectedEpoch}::int, ${a.instanceId}::text, ${a.claimId}::uuid, ${a.revision},
        ${a.actor.kind}, ${a.actor.id}, ${now}::timestamptz)`,
      ["restored"],
    );
  }

  async #call<TDone extends string>(
    call: (now: Date) => Prisma.Sql,
    done: readonly TDone[],
  ): Promise<CasOutcome<TDone>> {
    const now = await this.#resources.clock.now();
    return casOutcome(await callLeaseFunctionOnce(this.#resources.db, call(now)), done);
  }
}
