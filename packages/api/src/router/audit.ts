import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { adminProcedure } from "../trpc.ts";
import type { RouterFixtures } from "../fixtures.ts";

export const auditRouter = {
  /** The workspace's audit log, newest first; `before` is the id cursor of the next page. */
  list: adminProcedure
    .input(
      z.object({
        limit: z.number().int().min(1).max(200).default(50),
        before: z.bigint().positive().optional(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const rows = await ctx.db.auditEvent.findMany({
        where: {
          workspaceId: ctx.workspaceId,
          ...(input.before === undefined ? {} : { id: { lt: input.before } }),
        },
        orderBy: { id: "desc" },
        take: input.limit,
      });
      return {
        events: rows,
        nextBefore: rows.length === input.limit ? rows.at(-1)?.id : undefined,
      };
    }),
} satisfies TRPCRouterRecord;

export const auditFixtures: RouterFixtures<typeof auditRouter> = {
  list: { access: "admin", scope: "tenant", input: (w) => ({ workspaceId: w.workspaceId }) },
};
