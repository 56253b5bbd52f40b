import { z } from "zod";
import { confinementSchema } from "./confinement.ts";
import type { CasLoss, CasOutcome } from "./errors.ts";
import { epochSchema, idSchema, parseInput } from "./inputs.ts";
import { callLeaseFunctionOnce, Prisma, type TransitionRow } from "./leaseStore.ts";
import { checkedResources, type LeaseResources } from "./resources.ts";

const fenceSchema = z.object({
  workspaceId: idSchema,
  leaseId: idSchema,
  expectedEpoch: epochSchema,
});
const nameSchema = z.string().trim().min(1, { error: "must not be empty" }).max(200);
const actorSchema = nameSchema.default("spawner");

const allocationSchema = fenceSchema.extend({ allocationId: nameSchema });
/** The restore attempt this box belongs to (null when the lease had nothing to restore). */
const rematerializationSchema = idSchema.nullable().default(null);
const createdSchema = allocationSchema.extend({
  instanceId: nameSchema,
  rematerializationId: rematerializationSchema,
  /**
   * What the backend reported the box was given. The spawner always passes it; null (the
   * default) records the box as unknown, as a box recorded before Berth recorded it.
   */
  confinement: confinementSchema.nullable().default(null),
});
const commitSchema = fenceSchema.extend({
  instanceId: nameSchema,
  rematerializationId: rematerializationSchema,
  actor: actorSchema,
});
const failSchema = fenceSchema.extend({
  /** True only when the backend confirmed the box this spawner created is gone. */
  terminated: z.boolean(),
  actor: actorSchema,
  reason: z.string().max(200).nullable().default(null),
});
const lostSchema = fenceSchema.extend({ instanceId: nameSchema, actor: nameSchema });
const rearmSchema = fenceSchema.extend({ actor: nameSchema });
const drainColdSchema = fenceSchema.extend({
  instanceId: nameSchema.nullable(),
  /** The box was already gone when the drain came to capture it. */
  providerMissing: z.boolean().default(false),
  /** The box was suspended with its disk kept (not terminated): the cold lease remembers it. */
  suspended: z.boolean().default(false),
  actor: nameSchema.default("reaper"),
});
const takeSchema = fenceSchema.extend({
  instanceId: nameSchema,
  rematerializationId: rematerializationSchema,
});
const discardSchema = fenceSchema.extend({
  instanceId: nameSchema,
  reason: z.string().max(200).nullable().default(null),
});

export type RecordAllocationInput = z.input<typeof allocationSchema>;
export type RecordCreatedInput = z.input<typeof createdSchema>;
export type CommitWarmInput = z.input<typeof commitSchema>;
export type FailWarmingInput = z.input<typeof failSchema>;
export type MarkInstanceLostInput = z.input<typeof lostSchema>;
export type RearmInput = z.input<typeof rearmSchema>;
export type ConfirmDrainColdInput = z.input<typeof drainColdSchema>;
export type TakeSuspendedInput = z.input<typeof takeSchema>;
export type DiscardTakenInput = z.input<typeof discardSchema>;

/**
 * The spawner's path and what fences it: allocation intent → record created → commit warm, or
 * fail warming; and a warm box's loss. Every call is a CAS on (liveness, epoch[, allocation,
 * instance]); a loss returns `{ outcome: "lost", reason }` and changes nothing.
 */
export class WarmingSystem {
  readonly #resources: LeaseResources;

  constructor(resources: LeaseResources) {
    this.#resources = checkedResources(resources);
  }

  /**
   * Persists the allocation id before any backend create. `adopted` means a predecessor at an
   * earlier epoch already chose one: create (or find) the box under that id instead.
   */
  async recordAllocation(
    input: RecordAllocationInput,
  ): Promise<CasOutcome<"recorded" | "adopted">> {
    const args = parseInput(allocationSchema, input);
    const now = await this.#resources.clock.now();
    return this.#run(
      Prisma.sql`berth_lease_record_allocation(${args.workspaceId}::uuid, ${args.leaseId}::uuid,
        ${args.expectedEpoch}::int, ${args.allocationId}, ${now}::timestamptz)`,
      ["recorded", "adopted"],
    );
  }

  /**
   * Attributes the created box to the warming epoch, so the reaper can stop it if we die, and
   * records what the box was given (isolation, network, limits) in the same CAS.
   */
  async recordCreated(input: RecordCreatedInput): Promise<CasOutcome<"recorded">> {
    const args = parseInput(createdSchema, input);
    const { clock, config } = this.#resources;
    const now = await clock.now();
    const box = args.confinement;
    const limits = box?.limits;
    return this.#run(
      Prisma.sql`berth_lease_record_created(${args.workspaceId}::uuid, ${args.leaseId}::uuid,
        ${args.expectedEpoch}::int, ${args.allocationId}, ${args.instanceId}, ${args.rematerializationId}::uuid,
        ${config.warmingTimeoutMs}::int, ${now}::timestamptz, ${box?.isolation ?? null}::text,
        ${box?.network ?? null}::text, ${limits?.processes ?? null}::int, ${limits?.memoryBytes ?? null}::bigint,
        ${limits?.cpuWeight ?? null}::int, ${limits?.diskBytes ?? null}::bigint)`,
      ["recorded"],
    );
  }

  /**
   * Publishes the verified box: warm at epoch+1. A lease with an archive needs the
   * rematerialization that restored and verified its selected revision.
   */
  async commitWarm(input: CommitWarmInput): Promise<CasOutcome<"committed">> {
    const args = parseInput(commitSchema, input);
    const { clock, config } = this.#resources;
    const now = await clock.now();
    return this.#run(
      Prisma.sql`berth_lease_commit_warm(${args.workspaceId}::uuid, ${args.leaseId}::uuid,
        ${args.expectedEpoch}::int, ${args.instanceId}, ${args.rematerializationId}::uuid,
        ${config.leaseTtlMs}::int, ${args.actor}, ${now}::timestamptz)`,
      ["committed"],
    );
  }

  /** Rolls warming back to cold at epoch+1. */
  async failWarming(input: FailWarmingInput): Promise<CasOutcome<"failed">> {
    const args = parseInput(failSchema, input);
    const now = await this.#resources.clock.now();
    return this.#run(
      Prisma.sql`berth_lease_fail_warming(${args.workspaceId}::uuid, ${args.leaseId}::uuid,
        ${args.expectedEpoch}::int, ${args.terminated}, ${args.actor}, ${args.reason}::text,
        ${now}::timestamptz)`,
      ["failed"],
    );
  }

  /** The warm box is gone: exactly one of many concurrent observers marks it (epoch+1). */
  async markInstanceLost(input: MarkInstanceLostInput): Promise<CasOutcome<"marked">> {
    const args = parseInput(lostSchema, input);
    const now = await this.#resources.clock.now();
    return this.#run(
      Prisma.sql`berth_lease_mark_instance_lost(${args.workspaceId}::uuid, ${args.leaseId}::uuid,
        ${args.expectedEpoch}::int, ${args.instanceId}, ${args.actor}, ${now}::timestamptz)`,
      ["marked"],
    );
  }

  /** Draining → warm within the idle grace, epoch unchanged. */
  async rearm(input: RearmInput): Promise<CasOutcome<"rearmed">> {
    const args = parseInput(rearmSchema, input);
    const { clock, config } = this.#resources;
    const now = await clock.now();
    return this.#run(
      Prisma.sql`berth_lease_rearm(${args.workspaceId}::uuid, ${args.leaseId}::uuid,
        ${args.expectedEpoch}::int, ${config.leaseTtlMs}::int, ${args.actor}, ${now}::timestamptz)`,
      ["rearmed"],
    );
  }

  /**
   * The drained box was captured and stopped: cold at epoch+1 (unless an arrival re-armed it).
   * `suspended`: it was suspended with its disk, and the cold lease remembers its allocation and
   * instance for the next spawner.
   */
  async confirmDrainCold(input: ConfirmDrainColdInput): Promise<CasOutcome<"cold">> {
    const args = parseInput(drainColdSchema, input);
    const now = await this.#resources.clock.now();
    return this.#run(
      Prisma.sql`berth_lease_confirm_drain_cold(${args.workspaceId}::uuid, ${args.leaseId}::uuid,
        ${args.expectedEpoch}::int, ${args.instanceId}::text, ${args.providerMissing},
        ${args.suspended}, ${args.actor}, ${now}::timestamptz)`,
      ["cold"],
    );
  }

  /**
   * Takes the suspended box the cold lease remembers as this warming epoch's box, before it is
   * resumed (so the reaper stops it if this spawner dies): its allocation and instance become
   * the lease's, and the lease forgets it as suspended.
   */
  async takeSuspended(input: TakeSuspendedInput): Promise<CasOutcome<"taken">> {
    const args = parseInput(takeSchema, input);
    const { clock, config } = this.#resources;
    const now = await clock.now();
    return this.#run(
      Prisma.sql`berth_lease_take_suspended(${args.workspaceId}::uuid, ${args.leaseId}::uuid,
        ${args.expectedEpoch}::int, ${args.instanceId}, ${args.rematerializationId}::uuid,
        ${config.warmingTimeoutMs}::int, ${now}::timestamptz)`,
      ["taken"],
    );
  }

  /**
   * The taken box is confirmed deleted (it could not serve the selected revision): the epoch
   * forgets it, so the next allocation intent is a new one.
   */
  async discardTaken(input: DiscardTakenInput): Promise<CasOutcome<"discarded">> {
    const args = parseInput(discardSchema, input);
    const now = await this.#resources.clock.now();
    return this.#run(
      Prisma.sql`berth_lease_discard_taken(${args.workspaceId}::uuid, ${args.leaseId}::uuid,
        ${args.expectedEpoch}::int, ${args.instanceId}, ${args.reason}::text, ${now}::timestamptz)`,
      ["discarded"],
    );
  }

  async #run<TDone extends string>(
    call: Prisma.Sql,
    done: readonly TDone[],
  ): Promise<CasOutcome<TDone>> {
    const row = await callLeaseFunctionOnce(this.#resources.db, call);
    return casOutcome(row, done);
  }
}

/** Maps a function's row to a CAS outcome: one of `done`, or a named loss. */
export function casOutcome<TDone extends string>(
  row: TransitionRow,
  done: readonly TDone[],
): CasOutcome<TDone> {
  const outcome = done.find((name) => name === row.outcome);
  if (outcome !== undefined && row.lease !== null) return { outcome, lease: row.lease };
  return { outcome: "lost", reason: (row.reason ?? "stale_epoch") as CasLoss, lease: row.lease };
}
