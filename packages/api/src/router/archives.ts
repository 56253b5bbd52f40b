import { randomUUID } from "node:crypto";
import { isArchiveComplete } from "@berth/sandbox/lease";
import { idSchema } from "@berth/validators";
import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { sessionInput } from "../boxCall.ts";
import { sessionLeaseKey } from "../sessionScope.ts";
import { memberProcedure } from "../trpc.ts";
import type { RouterFixtures } from "../fixtures.ts";

export const archivesRouter = {
  /** A session's workspace archives, newest first, with the lease's current selection. */
  list: memberProcedure.input(z.object({ sessionId: idSchema })).query(async ({ ctx, input }) => {
    const lease = await ctx.db.sandboxLease.findUnique({
      where: await sessionLeaseKey(ctx, input.sessionId),
      select: {
        selectedRevision: true,
        archiveStatus: true,
        archiveGeneration: true,
        workspaceGeneration: true,
        archives: {
          where: { workspaceId: ctx.workspaceId },
          select: {
            id: true,
            revision: true,
            generation: true,
            sizeBytes: true,
            fileCount: true,
            status: true,
            createdAt: true,
          },
          orderBy: { generation: "desc" },
        },
      },
    });
    if (lease === null) return { archives: [], selectedRevision: null, archiveComplete: false };
    return {
      archives: lease.archives,
      selectedRevision: lease.selectedRevision,
      archiveComplete: isArchiveComplete(lease),
    };
  }),
  /**
   * Captures the session's workspace now (waking its box if cold) and publishes it as the
   * current archive. Progress arrives on events.session as `transfer` items.
   */
  capture: memberProcedure.input(sessionInput).mutation(async ({ ctx, input }) => {
    const captured = await ctx.boxes.capture(
      { workspaceId: ctx.workspaceId, sessionId: input.sessionId, requestId: randomUUID() },
      `${ctx.actor.kind}:${ctx.actor.id}`,
    );
    return {
      revision: captured.revision,
      generation: captured.generation,
      archiveComplete: captured.lease.archiveComplete,
    };
  }),
} satisfies TRPCRouterRecord;

export const archivesFixtures: RouterFixtures<typeof archivesRouter> = {
  list: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, sessionId: w.sessionId }),
  },
  capture: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, sessionId: w.boxSessionId }),
  },
};
