import { isArchiveComplete } from "@berth/sandbox/lease";
import { idSchema } from "@berth/validators";
import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
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
} satisfies TRPCRouterRecord;

export const archivesFixtures: RouterFixtures<typeof archivesRouter> = {
  list: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, sessionId: w.sessionId }),
  },
};
