import { preparedOnce, queryRows } from "@berth/db";
import { z } from "zod";
import {
  epochSchema,
  holderIdSchema,
  holderKindSchema,
  idSchema,
  operationSchema,
  parseInput,
} from "./inputs.ts";
import { checkedResources, type LeaseResources } from "./resources.ts";

const admitSchema = z.object({
  workspaceId: idSchema,
  leaseId: idSchema,
  sessionId: idSchema,
  expectedEpoch: epochSchema,
  instanceId: z.string().min(1),
  holderKind: holderKindSchema,
  holderId: holderIdSchema,
  /** The session's active sandbox the write is routed to: null is the group box. */
  routeTargetId: idSchema.nullable(),
  /** The session's activeEpoch the route was read at. */
  routeEpoch: epochSchema,
  operation: operationSchema,
});
export type AdmitWriteInput = z.input<typeof admitSchema>;

/** Why a write was not admitted: nothing changed, the write must not reach the box. */
export type AdmissionRefusal =
  "session_not_found" | "route_fenced" | "holder_fenced" | "lease_fenced";

export type AdmitWriteOutcome =
  | { readonly admitted: true; readonly admissionId: string; readonly generation: number }
  | { readonly admitted: false; readonly reason: AdmissionRefusal };

export type SettleOutcome = "settled" | "already_settled" | "not_found";

/** berth_lease_admit_write's row (also what berth_lease_acquire_admit answers of it). */
export function admissionOutcome(row: {
  readonly outcome: string;
  readonly reason: string | null;
  readonly admission_id: string | null;
  readonly generation: number | null;
}): AdmitWriteOutcome {
  if (row.outcome === "admitted" && row.admission_id !== null && row.generation !== null) {
    return { admitted: true, admissionId: row.admission_id, generation: row.generation };
  }
  return { admitted: false, reason: row.reason as AdmissionRefusal };
}

// Every write through box services runs these two: fixed texts, prepared once per connection.
const ADMIT = preparedOnce(`
  SELECT outcome, reason, admission_id, generation FROM berth_lease_admit_write($1::uuid,
    $2::uuid, $3::uuid, $4::int, $5, $6, $7, $8::uuid, $9::int, $10, $11::timestamptz)`);
const SETTLE = preparedOnce(
  "SELECT berth_lease_settle_admission($1::uuid, $2::uuid, $3, $4::timestamptz) AS result",
);

/**
 * Write admissions: every persistable write through box services first advances the lease's
 * workspace generation under the exact fence, so an archive can prove it captured every write.
 */
export class AdmissionSystem {
  readonly #resources: LeaseResources;

  constructor(resources: LeaseResources) {
    this.#resources = checkedResources(resources);
  }

  async admit(input: AdmitWriteInput): Promise<AdmitWriteOutcome> {
    const a = parseInput(admitSchema, input);
    const { db, clock } = this.#resources;
    const now = await clock.now();
    const [row] = await queryRows<{
      outcome: string;
      reason: string | null;
      admission_id: string | null;
      generation: number | null;
    }>(db, ADMIT, [
      a.workspaceId,
      a.leaseId,
      a.sessionId,
      a.expectedEpoch,
      a.instanceId,
      a.holderKind,
      a.holderId,
      a.routeTargetId,
      a.routeEpoch,
      a.operation,
      now,
    ]);
    if (row === undefined) throw new Error("berth_lease_admit_write answered no row");
    return admissionOutcome(row);
  }

  /** Marks the write done (`resolved`) or not done (`rejected`); only the first settle counts. */
  async settle(input: {
    workspaceId: string;
    admissionId: string;
    outcome: "resolved" | "rejected";
  }): Promise<SettleOutcome> {
    const a = parseInput(
      z.object({
        workspaceId: idSchema,
        admissionId: idSchema,
        outcome: z.enum(["resolved", "rejected"]),
      }),
      input,
    );
    const now = await this.#resources.clock.now();
    const [row] = await queryRows<{ result: SettleOutcome }>(this.#resources.db, SETTLE, [
      a.workspaceId,
      a.admissionId,
      a.outcome,
      now,
    ]);
    if (row === undefined) throw new Error("berth_lease_settle_admission answered no row");
    return row.result;
  }

  /** How many of the lease's admitted writes have not settled yet (are still reaching the box). */
  async unsettled(input: { workspaceId: string; leaseId: string }): Promise<number> {
    const a = parseInput(z.object({ workspaceId: idSchema, leaseId: idSchema }), input);
    const [row] = await this.#resources.db.$queryRaw<[{ count: number }]>`
      SELECT count(*)::int AS count FROM mutation_admissions
       WHERE lease_id = ${a.leaseId}::uuid AND workspace_id = ${a.workspaceId}::uuid AND settled_at IS NULL`;
    return row.count;
  }
}
