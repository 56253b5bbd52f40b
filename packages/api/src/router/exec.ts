import { execRequestSchema } from "@berth/box-protocol";
import type { TRPCRouterRecord } from "@trpc/server";
import { onBox, sessionInput, withGeneration } from "../boxCall.ts";
import type { RouterFixtures } from "../fixtures.ts";
import { memberProcedure } from "../trpc.ts";

export const execRouter = {
  /**
   * Runs argv in the box (no shell unless argv names one) and answers its exit and output. A
   * command may change the workspace, so every run is admitted as a write.
   */
  run: memberProcedure
    .input(sessionInput.extend(execRequestSchema.shape))
    .mutation(({ ctx, input }) =>
      onBox(ctx, { input, name: "exec.run", writes: true }, async (box, request, handle) =>
        withGeneration(await box.exec(request), handle),
      ),
    ),
} satisfies TRPCRouterRecord;

export const execFixtures: RouterFixtures<typeof execRouter> = {
  // Makes the repository the git fixtures then use.
  run: {
    access: "member",
    scope: "tenant",
    input: (w) => ({
      workspaceId: w.workspaceId,
      sessionId: w.boxSessionId,
      argv: ["sh", "-c", "git init -q -b main && echo hello > README.md"],
    }),
  },
};
