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

/** The lease of a session in the caller's workspace; NOT_FOUND if it has never had a box. */
async function leaseOf(ctx: MemberContext, sessionId: string) {
  const lease = await ctx.db.sandboxLease.findUnique({
    where: await sessionLeaseKey(ctx, sessionId),
    select: { id: true, epoch: true, instanceId: true },
  });
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
  revision_not_found: {
    code: "NOT_FOUND",
    message: "No available archive with that revision for this session.",
  },
  spawn_in_progress: {
    code: "PRECONDITION_FAILED",
    message: "A box is being created; retry once it is warm.",
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
   * Admin: the next box restores revision R. Only while no box is live: capturing a live box
   * first needs the backend, which the API process gains with box services.
   */
  restoreRevision: adminProcedure
    .input(sessionInput.extend({ revision: revisionSchema }))
    .mutation(async ({ ctx, input }) => {
      const lease = await leaseOf(ctx, input.sessionId);
      if (lease.instanceId !== null)
        throw new TRPCError({
          code: "PRECONDITION_FAILED",
          message:
            "The box is live: wait until it drains (or the worker restores it), then choose the revision.",
        });
      const result = await recovery(ctx).restoreRevision({
        workspaceId: ctx.workspaceId,
        leaseId: lease.id,
        expectedEpoch: lease.epoch,
        instanceId: null,
        revision: input.revision,
        actor: ctx.actor,
      });
      if (result.outcome === "lost") throw lost(result.reason);
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
