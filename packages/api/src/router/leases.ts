import { readLeaseEvents } from "@berth/sandbox/events";
import { readSessionSwaps } from "@berth/sandbox";
import {
  LeaseError,
  type LeaseSystem,
  type AcquireOutcome,
  type HeartbeatOutcome,
  type LeaseSnapshot,
} from "@berth/sandbox/lease";
import { idSchema } from "@berth/validators";
import type { TRPCRouterRecord } from "@trpc/server";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import type { RouterFixtures } from "../fixtures.ts";
import { sessionLeaseKey } from "../sessionScope.ts";
import { memberProcedure, type MemberContext } from "../trpc.ts";

// Turn holders (agent runtimes) and viewer holders (dashboards) of a session's lease. The lease
// is always found through the session, in the caller's workspace, in the query itself: a holder
// id names a holder only inside that lease, so no one can touch another workspace's holders.

/** A caller's id for its turn or viewer: bounded, and plain enough to log. */
const holderPartSchema = z
  .string()
  .regex(/^[\w.:-]{1,128}$/, "must be 1–128 letters, digits or . _ : -");
const epochSchema = z.number().int().min(0);

const sessionInput = z.object({ sessionId: idSchema });
const turnInput = sessionInput.extend({ turnId: holderPartSchema });
const viewerInput = sessionInput.extend({ viewerId: holderPartSchema });

const turnHolder = (turnId: string) => `turn:${turnId}`;
const viewerHolder = (viewerId: string) => `viewer:${viewerId}`;

/** An id of lease_events: a bigint, or its decimal digits (as an SSE event id travels). */
export const eventIdSchema = z.union([
  z.bigint().min(0n),
  z
    .string()
    .regex(/^\d{1,19}$/, "must be an event id")
    .transform((digits) => BigInt(digits)),
]);

/** The lease systems box services run on: the same configured TTLs for every holder. */
function leases(ctx: MemberContext): LeaseSystem {
  return ctx.boxes.leases;
}

/** The session's lease id, or null while it has never had one; NOT_FOUND for a foreign session. */
async function leaseIdOf(ctx: MemberContext, sessionId: string): Promise<string | null> {
  const lease = await ctx.db.sandboxLease.findUnique({
    where: await sessionLeaseKey(ctx, sessionId),
    select: { id: true },
  });
  return lease?.id ?? null;
}

/** An arrival; the lease functions check the session against the workspace themselves. */
async function acquire(
  ctx: MemberContext,
  input: { sessionId: string; kind: "turn" | "viewer"; holderId: string; expectedEpoch?: number },
) {
  // A caller that wins the spawner role gets the box created before the answer.
  const outcome = await ctx.boxes
    .arrive({ workspaceId: ctx.workspaceId, ...input })
    .catch((error: unknown) => {
      if (error instanceof LeaseError && error.code === "session_not_found")
        throw new TRPCError({ code: "NOT_FOUND", message: "No such session in this workspace." });
      throw error;
    });
  return arrival(outcome);
}

/**
 * What an arrival tells its caller. `spawner`: this call moved the lease to warming (the API
 * creates no box; the caller's runtime does). `fenced`/`blocked` carry why; they hold nothing.
 */
function arrival(outcome: AcquireOutcome) {
  const { lease } = outcome;
  const base = { epoch: lease.epoch, liveness: lease.liveness, leaseId: lease.id };
  switch (outcome.role) {
    case "spawner":
    case "attached":
    case "rearmed":
      return { role: outcome.role, reason: null, ...base };
    case "fenced":
    case "blocked":
      return { role: outcome.role, reason: outcome.reason, ...base };
  }
}

/** Epoch-fenced: a stale epoch, a gone holder or no lease at all is `alive: false`, not an error. */
async function heartbeat(
  ctx: MemberContext,
  input: { sessionId: string; kind: "turn" | "viewer"; holderId: string; expectedEpoch: number },
) {
  const leaseId = await leaseIdOf(ctx, input.sessionId);
  if (leaseId === null) return { alive: false, epoch: null, reason: "lease_not_found" } as const;
  const outcome: HeartbeatOutcome = await leases(ctx).heartbeat({
    workspaceId: ctx.workspaceId,
    leaseId,
    kind: input.kind,
    holderId: input.holderId,
    expectedEpoch: input.expectedEpoch,
  });
  if (outcome.alive) return { alive: true, epoch: outcome.lease.epoch, reason: null } as const;
  return { alive: false, epoch: outcome.lease?.epoch ?? null, reason: outcome.reason } as const;
}

/** Deletes the caller's holder; a repeat (or a lease that never was) releases nothing. */
async function release(
  ctx: MemberContext,
  input: { sessionId: string; kind: "turn" | "viewer"; holderId: string },
) {
  const leaseId = await leaseIdOf(ctx, input.sessionId);
  if (leaseId === null) return { released: false };
  const outcome = await leases(ctx).release({
    workspaceId: ctx.workspaceId,
    leaseId,
    kind: input.kind,
    holderId: input.holderId,
  });
  return { released: outcome.released };
}

/** What a dashboard shows of a lease. */
function dashboardView(lease: LeaseSnapshot) {
  return {
    leaseId: lease.id,
    liveness: lease.liveness,
    epoch: lease.epoch,
    /** The box the lease holds now (null while cold). */
    instanceId: lease.instanceId,
    holderCount: lease.holderCount,
    turnHolders: lease.turnHolders,
    viewerHolders: lease.viewerHolders,
    providerStatus: lease.providerStatus,
    archiveStatus: lease.archiveStatus,
    restoreStatus: lease.restoreStatus,
    workspaceStatus: lease.workspaceStatus,
    workspaceGeneration: lease.workspaceGeneration,
    archiveGeneration: lease.archiveGeneration,
    archiveComplete: lease.archiveComplete,
    selectedRevision: lease.selectedRevision,
    expiresAt: lease.expiresAt,
  };
}

export const leasesRouter = {
  /** An agent turn arrives: holder `turn:<turnId>`. */
  acquireTurn: memberProcedure
    .input(turnInput.extend({ expectedEpoch: epochSchema.optional() }))
    .mutation(({ ctx, input }) =>
      acquire(ctx, {
        sessionId: input.sessionId,
        kind: "turn",
        holderId: turnHolder(input.turnId),
        ...(input.expectedEpoch === undefined ? {} : { expectedEpoch: input.expectedEpoch }),
      }),
    ),

  heartbeatTurn: memberProcedure
    .input(turnInput.extend({ expectedEpoch: epochSchema }))
    .mutation(({ ctx, input }) =>
      heartbeat(ctx, {
        sessionId: input.sessionId,
        kind: "turn",
        holderId: turnHolder(input.turnId),
        expectedEpoch: input.expectedEpoch,
      }),
    ),

  releaseTurn: memberProcedure.input(turnInput).mutation(({ ctx, input }) =>
    release(ctx, {
      sessionId: input.sessionId,
      kind: "turn",
      holderId: turnHolder(input.turnId),
    }),
  ),

  /** A dashboard starts viewing the session's box: holder `viewer:<viewerId>`. */
  attachViewer: memberProcedure.input(viewerInput).mutation(({ ctx, input }) =>
    acquire(ctx, {
      sessionId: input.sessionId,
      kind: "viewer",
      holderId: viewerHolder(input.viewerId),
    }),
  ),

  heartbeatViewer: memberProcedure
    .input(viewerInput.extend({ expectedEpoch: epochSchema }))
    .mutation(({ ctx, input }) =>
      heartbeat(ctx, {
        sessionId: input.sessionId,
        kind: "viewer",
        holderId: viewerHolder(input.viewerId),
        expectedEpoch: input.expectedEpoch,
      }),
    ),

  detachViewer: memberProcedure.input(viewerInput).mutation(({ ctx, input }) =>
    release(ctx, {
      sessionId: input.sessionId,
      kind: "viewer",
      holderId: viewerHolder(input.viewerId),
    }),
  ),

  /** The session's lease as a dashboard shows it; null while it has never had one. */
  get: memberProcedure.input(sessionInput).query(async ({ ctx, input }) => {
    const key = await sessionLeaseKey(ctx, input.sessionId);
    const lease = await leases(ctx).readByGroup(key.workspaceId_sandboxGroupId);
    return lease === null ? null : dashboardView(lease);
  }),

  /** The lease's events, oldest first, after `afterId`; `nextAfterId` is set while more remain. */
  timeline: memberProcedure
    .input(
      sessionInput.extend({
        afterId: eventIdSchema.optional(),
        limit: z.number().int().min(1).max(200).default(50),
      }),
    )
    .query(async ({ ctx, input }) => {
      const leaseId = await leaseIdOf(ctx, input.sessionId);
      // Beside the lease's events, the session's swaps (hot-swap): a session that never had a
      // box has no lease and still a history of where its work went. The latest `limit`.
      const swaps = await readSessionSwaps(ctx.db, {
        workspaceId: ctx.workspaceId,
        sessionId: input.sessionId,
        limit: input.limit,
      });
      if (leaseId === null) return { events: [], nextAfterId: null, swaps };
      const events = await readLeaseEvents(ctx.db, {
        workspaceId: ctx.workspaceId,
        leaseId,
        afterId: input.afterId ?? null,
        limit: input.limit,
      });
      const last = events.at(-1);
      return {
        events,
        nextAfterId: last !== undefined && events.length === input.limit ? last.id : null,
        swaps,
      };
    }),
} satisfies TRPCRouterRecord;

// On the session the box fixtures warmed: a spawner's arrival would create a box.
const onSession = (w: { workspaceId: string; boxSessionId: string }) => ({
  workspaceId: w.workspaceId,
  sessionId: w.boxSessionId,
});

export const leasesFixtures: RouterFixtures<typeof leasesRouter> = {
  acquireTurn: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ ...onSession(w), turnId: "fixture-turn" }),
  },
  heartbeatTurn: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ ...onSession(w), turnId: "fixture-turn", expectedEpoch: 0 }),
  },
  releaseTurn: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ ...onSession(w), turnId: "fixture-turn" }),
  },
  attachViewer: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ ...onSession(w), viewerId: "fixture-viewer" }),
  },
  heartbeatViewer: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ ...onSession(w), viewerId: "fixture-viewer", expectedEpoch: 0 }),
  },
  detachViewer: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ ...onSession(w), viewerId: "fixture-viewer" }),
  },
  get: { access: "member", scope: "tenant", input: onSession },
  timeline: { access: "member", scope: "tenant", input: (w) => ({ ...onSession(w), limit: 10 }) },
};
