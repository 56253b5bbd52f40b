import type { TRPCRouterRecord } from "@trpc/server";
import { authedProcedure } from "../trpc.ts";
import type { RouterFixtures } from "../fixtures.ts";

export const meRouter = {
  /** Who the caller is and where they may act; a token sees only its own workspace. */
  get: authedProcedure.query(async ({ ctx }) => {
    const { caller } = ctx;
    const user = await ctx.db.user.findUniqueOrThrow({
      where: { id: caller.userId },
      select: {
        id: true,
        email: true,
        name: true,
        memberships: {
          where: caller.kind === "token" ? { workspaceId: caller.workspaceId } : {},
          select: { role: true, workspace: { select: { id: true, slug: true, name: true } } },
          orderBy: { createdAt: "asc" },
        },
      },
    });
    return {
      user: { id: user.id, email: user.email, name: user.name },
      via: caller.kind,
      workspaces: user.memberships.map((m) => ({
        ...m.workspace,
        role: caller.kind === "token" ? caller.role : m.role,
      })),
    };
  }),
} satisfies TRPCRouterRecord;

export const meFixtures: RouterFixtures<typeof meRouter> = {
  get: { access: "authed", scope: "own", input: () => undefined },
};
