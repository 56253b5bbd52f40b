import { TRPCError } from "@trpc/server";
import type { MemberContext } from "./trpc.ts";

/**
 * A session of the caller's workspace, found with the workspace in the query itself, and the
 * key of its sandbox group's lease. Any other session is NOT_FOUND.
 */
export async function sessionLeaseKey(
  ctx: MemberContext,
  sessionId: string,
): Promise<{ workspaceId_sandboxGroupId: { workspaceId: string; sandboxGroupId: string } }> {
  const session = await ctx.db.session.findFirst({
    where: { id: sessionId, workspaceId: ctx.workspaceId },
    select: { sandboxGroupId: true },
  });
  if (session === null)
    throw new TRPCError({ code: "NOT_FOUND", message: "No such session in this workspace." });
  return {
    workspaceId_sandboxGroupId: {
      workspaceId: ctx.workspaceId,
      sandboxGroupId: session.sandboxGroupId,
    },
  };
}
