import { z } from "zod";
import type { CasOutcome } from "./errors.ts";
import { epochSchema, holderIdSchema, idSchema, parseInput } from "./inputs.ts";
import { callLeaseFunctionOnce, Prisma } from "./leaseStore.ts";
import { checkedResources, type LeaseResources } from "./resources.ts";
import { casOutcome } from "./warmingSystem.ts";

const openSchema = z.object({
  workspaceId: idSchema,
  leaseId: idSchema,
  expectedEpoch: epochSchema,
  instanceId: z.string().min(1),
  holderId: holderIdSchema,
  /** What the process belongs to (the session that opened it). */
  subjectId: idSchema,
});
export type OpenProcessInput = z.input<typeof openSchema>;

const closeSchema = z.object({
  workspaceId: idSchema,
  leaseId: idSchema,
  holderId: holderIdSchema,
});
export type CloseProcessInput = z.input<typeof closeSchema>;

/**
 * Process holders: a process in the box (an open terminal) keeps its box warm while it runs. It
 * is opened under the exact warm epoch and instance (a stale one is a named loss), never expires
 * by time, ends when the process ends, and is deleted with a lost instance.
 */
export class ProcessHolders {
  readonly #resources: LeaseResources;

  constructor(resources: LeaseResources) {
    this.#resources = checkedResources(resources);
  }

  async open(input: OpenProcessInput): Promise<CasOutcome<"opened">> {
    const a = parseInput(openSchema, input);
    const now = await this.#resources.clock.now();
    return casOutcome(
      await callLeaseFunctionOnce(
        this.#resources.db,
        Prisma.sql`berth_lease_open_process(${a.workspaceId}::uuid, ${a.leaseId}::uuid,
          ${a.expectedEpoch}::int, ${a.instanceId}, ${a.holderId}, ${a.subjectId}::uuid, ${now}::timestamptz)`,
      ),
      ["opened"],
    );
  }

  /** Ends the process's hold; answers whether it was held. The last holder starts the idle grace. */
  async close(input: CloseProcessInput): Promise<boolean> {
    const a = parseInput(closeSchema, input);
    const { clock, config, db } = this.#resources;
    const now = await clock.now();
    const row = await callLeaseFunctionOnce(
      db,
      Prisma.sql`berth_lease_close_process(${a.workspaceId}::uuid, ${a.leaseId}::uuid, ${a.holderId},
        ${config.idleGraceMs}::int, ${now}::timestamptz)`,
    );
    return row.reason === null;
  }
}
