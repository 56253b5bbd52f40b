import { readMachines } from "@berth/sandbox";
import { idSchema } from "@berth/validators";
import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import type { RouterFixtures } from "../fixtures.ts";
import { memberProcedure } from "../trpc.ts";

export const machinesRouter = {
  /**
   * The machines a session can run on (with `sessionId`: its group box, then the workspace's
   * enrolled machines), or the group box of every session of the workspace: state, generations,
   * `archiveComplete`, holders, and `confinement` (the running box's isolation, network and
   * limits, as its lease recorded them). One query, whatever the count.
   */
  list: memberProcedure
    .input(z.object({ sessionId: idSchema.optional() }))
    .query(async ({ ctx, input }) => {
      const machines = await readMachines(
        ctx.db,
        {
          workspaceId: ctx.workspaceId,
          ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
        },
        await ctx.clock.now(),
      );
      if (input.sessionId !== undefined && machines.length === 0)
        throw new TRPCError({ code: "NOT_FOUND", message: "No such session in this workspace." });
      return machines;
    }),
} satisfies TRPCRouterRecord;

export const machinesFixtures: RouterFixtures<typeof machinesRouter> = {
  list: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, sessionId: w.sessionId }),
  },
};
