import { z } from "zod";
import {
  assertNever,
  LeaseError,
  type AcquireOutcome,
  type BlockedReason,
  type DeadHolderReason,
  type FencedReason,
  type HeartbeatOutcome,
} from "./errors.ts";
import {
  epochSchema,
  holderIdSchema,
  holderKindSchema,
  idSchema,
  operationSchema,
  parseInput,
  profileSchema,
} from "./inputs.ts";
import {
  acquireAndAdmitCall,
  acquireCallWithPointer,
  callAcquireCall,
  leaseCall,
  type AcquireArgs,
  type MachinePointer,
  type SessionPointer,
  type StatementAdmission,
  type TransitionRow,
} from "./leaseStore.ts";
import { checkedResources, type LeaseResources } from "./resources.ts";
import { parseLeaseRow, type LeaseSnapshot } from "./snapshot.ts";
import type { AcquirableHolderKind, HolderKind } from "./states.ts";

const acquirableKindSchema = holderKindSchema.exclude(["process"], {
  error: "process holders follow their process and cannot be acquired",
});

const acquireSchema = z.object({
  workspaceId: idSchema,
  sessionId: idSchema,
  kind: acquirableKindSchema,
  holderId: holderIdSchema,
  profile: profileSchema.default(null),
  /** For turns: the epoch the turn was dispatched against; a newer box fences it. */
  expectedEpoch: epochSchema.nullable().default(null),
});
export type AcquireInput = z.input<typeof acquireSchema>;

/** An acquire for a write, with the write's operation name for its admission. */
const acquireAdmitSchema = acquireSchema.extend({ operation: operationSchema });

/** A box call's acquire: a write names its operation, a read passes null. */
const callAcquireSchema = acquireSchema.extend({ operation: operationSchema.nullable() });

/**
 * What a box call's acquire found: the session routed to an enrolled machine (nothing taken), or
 * the holder's outcome on the group lease, with the pointer and a write's admission as
 * acquireAndAdmit answers them.
 */
export type CallAcquire =
  | { readonly kind: "routed"; readonly pointer: MachinePointer }
  | {
      readonly kind: "acquired";
      readonly acquired: AcquireOutcome;
      readonly pointer: SessionPointer | null;
      readonly admission: StatementAdmission;
    };

const holderRefSchema = z.object({
  workspaceId: idSchema,
  leaseId: idSchema,
  kind: holderKindSchema,
  holderId: holderIdSchema,
});
export type HolderRef = z.input<typeof holderRefSchema>;

const heartbeatSchema = holderRefSchema.extend({ expectedEpoch: epochSchema });
export type HeartbeatInput = z.input<typeof heartbeatSchema>;

const releaseSchema = holderRefSchema.extend({ kind: acquirableKindSchema });
export type ReleaseInput = z.input<typeof releaseSchema>;

export interface ReleaseOutcome {
  /** False when the caller held nothing (a repeat release): nothing changed. */
  readonly released: boolean;
  readonly lease: LeaseSnapshot | null;
}

/**
 * Arrivals and departures: acquire, heartbeat, touch, release, read. Each call validates its
 * input (a bad one throws `invalid_input` before any write), takes `now` from the clock, and
 * runs one lease function: one round trip, one transaction.
 */
export class LeaseSystem {
  readonly #resources: LeaseResources;
  readonly #call: ReturnType<typeof leaseCall>;
  readonly #callWithPointer: ReturnType<typeof acquireCallWithPointer>;

  constructor(resources: LeaseResources) {
    this.#resources = checkedResources(resources);
    this.#call = leaseCall(this.#resources.db);
    this.#callWithPointer = acquireCallWithPointer(this.#resources.db);
  }

  async acquire(input: AcquireInput): Promise<AcquireOutcome> {
    return (await this.acquireWithPointer(input)).acquired;
  }

  /**
   * acquire, also answering the session's pointer as the same statement read it: what a box
   * call needs before it reaches the box, in one round trip.
   */
  async acquireWithPointer(
    input: AcquireInput,
  ): Promise<{ acquired: AcquireOutcome; pointer: SessionPointer | null }> {
    const args = parseInput(acquireSchema, input);
    const { config, clock } = this.#resources;
    const now = await clock.now();
    const { row, pointer } = await this.#callWithPointer`
      berth_lease_acquire(${args.workspaceId}::uuid, ${args.sessionId}::uuid, ${args.kind},
        ${args.holderId}, ${args.profile}::text, ${config.leaseTtlMs}::int, ${config.warmingTimeoutMs}::int,
        ${args.expectedEpoch}::int, ${now}::timestamptz)`;
    return { acquired: acquireOutcome(row, args), pointer };
  }

  /**
   * acquireWithPointer for a write: when the holder attaches to a warm lease routed to its
   * group box, the same statement admits the write (`operation`) under that very holder,
   * epoch, instance and route. `admission` is null when it was not tried (any other outcome:
   * the write is admitted once the box is warm, by the routing step).
   */
  async acquireAndAdmit(
    input: AcquireInput,
    operation: string,
  ): Promise<{
    acquired: AcquireOutcome;
    pointer: SessionPointer | null;
    admission: StatementAdmission;
  }> {
    const args = parseInput(acquireAdmitSchema, { ...input, operation });
    const { row, pointer, admission } = await acquireAndAdmitCall(
      this.#resources.db,
      await this.#acquireArgs(args),
    );
    return { acquired: acquireOutcome(row, args), pointer, admission };
  }

  /**
   * A box call's acquire (hot-swap): the session's pointer decides first, in the same statement.
   * On an enrolled machine it takes no holder of the group lease and so never wakes the group
   * box; on the group box it is acquireAndAdmit (`operation` a write's name) or acquireWithPointer
   * (`operation` null, a read).
   */
  async acquireForCall(input: AcquireInput, operation: string | null): Promise<CallAcquire> {
    const args = parseInput(callAcquireSchema, { ...input, operation });
    const found = await callAcquireCall(this.#resources.db, await this.#acquireArgs(args));
    if ("routed" in found) return { kind: "routed", pointer: found.routed };
    const { row, pointer, admission } = found;
    return { kind: "acquired", acquired: acquireOutcome(row, args), pointer, admission };
  }

  /** An acquire statement's arguments, in its parameters' order, at the clock's now. */
  async #acquireArgs<TOperation extends string | null>(
    args: z.output<typeof acquireSchema> & { operation: TOperation },
  ): Promise<AcquireArgs<TOperation>> {
    const { config, clock } = this.#resources;
    return [
      args.workspaceId,
      args.sessionId,
      args.kind,
      args.holderId,
      args.profile,
      config.leaseTtlMs,
      config.warmingTimeoutMs,
      args.expectedEpoch,
      await clock.now(),
      args.operation,
    ];
  }

  /** Epoch-fenced: a stale epoch changes nothing and answers `alive: false`. */
  async heartbeat(input: HeartbeatInput): Promise<HeartbeatOutcome> {
    const args = parseInput(heartbeatSchema, input);
    const { config, clock } = this.#resources;
    const now = await clock.now();
    const row = await this.#call`
      berth_lease_heartbeat(${args.workspaceId}::uuid, ${args.leaseId}::uuid, ${args.kind},
        ${args.holderId}, ${args.expectedEpoch}::int, ${config.leaseTtlMs}::int, ${now}::timestamptz)`;
    if (row.outcome === "alive" && row.lease !== null) return { alive: true, lease: row.lease };
    return { alive: false, reason: row.reason as DeadHolderReason, lease: row.lease };
  }

  /** Refreshes the holder only; true if it still exists. */
  async touch(input: HolderRef): Promise<boolean> {
    const args = parseInput(holderRefSchema, input);
    const now = await this.#resources.clock.now();
    const [row] = await this.#resources.db.$queryRaw<[{ alive: boolean }]>`
      SELECT berth_lease_touch(${args.workspaceId}::uuid, ${args.leaseId}::uuid, ${args.kind},
        ${args.holderId}, ${now}::timestamptz) AS alive`;
    return row.alive;
  }

  /** Deletes the caller's holder; the last holder of a warm lease starts the idle grace. */
  async release(input: ReleaseInput): Promise<ReleaseOutcome> {
    const args = parseInput(releaseSchema, input);
    const { config, clock } = this.#resources;
    const now = await clock.now();
    const row = await this.#call`
      berth_lease_release(${args.workspaceId}::uuid, ${args.leaseId}::uuid, ${args.kind},
        ${args.holderId}, ${config.idleGraceMs}::int, ${now}::timestamptz)`;
    return { released: row.reason === null, lease: row.lease };
  }

  /** A non-locking read of the group's lease, or null if it has none yet. */
  async readByGroup(input: {
    workspaceId: string;
    sandboxGroupId: string;
  }): Promise<LeaseSnapshot | null> {
    const args = parseInput(z.object({ workspaceId: idSchema, sandboxGroupId: idSchema }), input);
    const rows = await this.#resources.db.$queryRaw<{ lease: unknown }[]>`
      SELECT to_jsonb(l) AS lease FROM sandbox_leases l
       WHERE workspace_id = ${args.workspaceId}::uuid AND sandbox_group_id = ${args.sandboxGroupId}::uuid`;
    return rows[0] === undefined ? null : parseLeaseRow(rows[0].lease);
  }
}

function acquireOutcome(
  row: TransitionRow,
  args: { kind: AcquirableHolderKind | HolderKind; sessionId: string },
): AcquireOutcome {
  const outcome = row.outcome as AcquireOutcome["role"] | "error";
  if (outcome === "error" || row.lease === null) throw acquireError(row, args);
  switch (outcome) {
    case "spawner":
    case "attached":
    case "rearmed":
      return { role: outcome, lease: row.lease };
    case "fenced":
      return { role: "fenced", reason: row.reason as FencedReason, lease: row.lease };
    case "blocked":
      return { role: "blocked", reason: row.reason as BlockedReason, lease: row.lease };
    default:
      return assertNever(outcome);
  }
}

function acquireError(row: TransitionRow, args: { sessionId: string }): LeaseError {
  if (row.reason === "session_not_found") {
    return new LeaseError({
      code: "session_not_found",
      message: `Session ${args.sessionId} does not exist in this workspace.`,
      details: { sessionId: args.sessionId },
    });
  }
  if (row.reason === "profile_conflict") {
    return new LeaseError({
      code: "profile_conflict",
      message:
        "The box runs another execution profile and others are using it; retry once they are done, " +
        "or use the profile it runs.",
      details: { running: row.lease?.executionProfile },
      lease: row.lease,
    });
  }
  // The SQL answers only the reasons above; anything else is a bug between the two layers.
  throw new Error(`berth_lease_acquire answered an unknown refusal: ${String(row.reason)}`);
}
