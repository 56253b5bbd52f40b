import { RestoreRefusedError } from "@berth/sandbox";
import {
  defaultLeaseConfig,
  RecoverySystem,
  type CasLoss,
  type LeaseSnapshot,
} from "@berth/sandbox/lease";
import { idSchema } from "@berth/validators";
import type { TRPCRouterRecord } from "@trpc/server";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import type { RouterFixtures } from "../fixtures.ts";
import { sessionLeaseKey } from "../sessionScope.ts";
import { adminProcedure, type MemberContext } from "../trpc.ts";

const sessionInput = z.object({ sessionId: idSchema });
const revisionSchema = z
  .string()
  .regex(/^[0-9a-f]{64}$/, "must be a sha256 revision (64 hex digits)");
const epochSchema = z.number().int().min(0).max(2_147_483_647);

/** The lease of a session in the caller's workspace; NOT_FOUND if it has never had a box. */
async function leaseOf(ctx: MemberContext, sessionId: string): Promise<LeaseSnapshot> {
  const key = await sessionLeaseKey(ctx, sessionId);
  const lease = await ctx.boxes.leases.readByGroup(key.workspaceId_sandboxGroupId);
  if (lease === null)
    throw new TRPCError({ code: "NOT_FOUND", message: "This session has no box to recover yet." });
  return lease;
}

function recovery(ctx: MemberContext): RecoverySystem {
  return new RecoverySystem({ db: ctx.db, clock: ctx.clock, config: defaultLeaseConfig });
}

/** The losses an admin can act on; any other means the box moved meanwhile. */
const advice: Partial<
  Record<CasLoss, { code: "PRECONDITION_FAILED" | "NOT_FOUND"; message: string }>
> = {
  not_blocked: {
    code: "PRECONDITION_FAILED",
    message: "This box is not blocked: nothing to start fresh from.",
  },
};

/** A lost compare-and-swap, told as what the admin can do about it. */
function lost(reason: CasLoss): TRPCError {
  return new TRPCError(
    advice[reason] ?? {
      code: "CONFLICT",
      message: `The box changed meanwhile (${reason}); reload and retry.`,
    },
  );
}

function summary(lease: LeaseSnapshot) {
  return {
    liveness: lease.liveness,
    epoch: lease.epoch,
    restoreStatus: lease.restoreStatus,
    selectedRevision: lease.selectedRevision,
    workspaceGeneration: lease.workspaceGeneration,
  };
}

export const recoveryRouter = {
  /** Admin: a blocked box (its archive lost or corrupt) starts again from an empty workspace. */
  startFresh: adminProcedure.input(sessionInput).mutation(async ({ ctx, input }) => {
    const lease = await leaseOf(ctx, input.sessionId);
    const result = await recovery(ctx).startFresh({
      workspaceId: ctx.workspaceId,
      leaseId: lease.id,
      expectedEpoch: lease.epoch,
      actor: ctx.actor,
    });
    if (result.outcome === "lost") throw lost(result.reason);
    return summary(result.lease);
  }),

  /**
   * Admin: the session's workspace goes back to revision R. A live box is fenced (no write is
   * admitted; calls that arrive wait for the restore), captured once the writes already admitted
   * have settled (the live workspace becomes an archive revision of its own, with progress on
   * events.session) and stopped; then R is selected at a new generation and the box is left
   * cold: the next call on it restores R and verifies it. Every step is CAS'd on the epoch the
   * restore started from (`expectedEpoch`, when the admin names the one they saw); a refusal
   * (RestoreRefusedError, mapped in errors/errorTable.ts) leaves the box running with every write.
   */
  restoreRevision: adminProcedure
    .input(sessionInput.extend({ revision: revisionSchema, expectedEpoch: epochSchema.optional() }))
    .mutation(async ({ ctx, input }) => {
      const lease = await leaseOf(ctx, input.sessionId);
      if (input.expectedEpoch !== undefined && input.expectedEpoch !== lease.epoch)
        throw new RestoreRefusedError("stale_epoch", {
          detail: `epoch ${String(input.expectedEpoch)} is now ${String(lease.epoch)}`,
          epoch: lease.epoch,
        });
      // Writes this process answered settle just behind their answers: let them land first.
      await ctx.boxes.settled();
      const result = await ctx.boxes.recovery.restoreRevision({
        lease,
        revision: input.revision,
        actor: ctx.actor,
      });
      if (result.outcome === "lost") throw RestoreRefusedError.lost(result.reason, result.lease);
      return summary(result.lease);
    }),
} satisfies TRPCRouterRecord;

export const recoveryFixtures: RouterFixtures<typeof recoveryRouter> = {
  startFresh: {
    access: "admin",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, sessionId: w.sessionId }),
  },
  restoreRevision: {
    access: "admin",
    scope: "tenant",
    input: (w) => ({
      workspaceId: w.workspaceId,
      sessionId: w.sessionId,
      revision: w.archiveRevision,
    }),
  },
};
