import { randomUUID } from "node:crypto";
import { Prisma } from "@berth/db";
import { displayNameSchema, workspaceSlugSchema } from "@berth/validators";
import type { TRPCRouterRecord } from "@trpc/server";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { writeAudit } from "../audit.ts";
import { memberProcedure, personProcedure } from "../trpc.ts";
import type { RouterFixtures } from "../fixtures.ts";

export const workspacesRouter = {
  /** A new workspace; its creator is its owner. */
  create: personProcedure
    .input(z.object({ slug: workspaceSlugSchema, name: displayNameSchema }))
    .mutation(async ({ ctx, input }) => {
      const now = await ctx.clock.now();
      try {
        return await ctx.db.$transaction(async (tx) => {
          const workspace = await tx.workspace.create({
            data: { slug: input.slug, name: input.name },
            select: { id: true, slug: true, name: true },
          });
          await tx.membership.create({
            data: {
              workspaceId: workspace.id,
              userId: ctx.caller.userId,
              role: "owner",
              createdAt: now,
            },
          });
          await writeAudit(tx, {
            workspaceId: workspace.id,
            actor: { kind: "user", id: ctx.caller.userId },
            action: "workspace.create",
            target: { kind: "workspace", id: workspace.id },
            after: { slug: workspace.slug, name: workspace.name },
            at: now,
          });
          return workspace;
        });
      } catch (error) {
        if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
          throw new TRPCError({
            code: "CONFLICT",
            message: `The slug "${input.slug}" is taken; choose another.`,
          });
        throw error;
      }
    }),

  get: memberProcedure.query(async ({ ctx }) => {
    const workspace = await ctx.db.workspace.findUniqueOrThrow({
      where: { id: ctx.workspaceId },
      select: { id: true, slug: true, name: true, createdAt: true },
    });
    return { ...workspace, role: ctx.role };
  }),
} satisfies TRPCRouterRecord;

export const workspacesFixtures: RouterFixtures<typeof workspacesRouter> = {
  create: {
    access: "person",
    scope: "own",
    input: () => ({ slug: `fresh-${randomUUID().slice(0, 8)}`, name: "Fresh" }),
  },
  get: { access: "member", scope: "tenant", input: (w) => ({ workspaceId: w.workspaceId }) },
};
