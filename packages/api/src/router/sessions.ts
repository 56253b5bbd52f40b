import { sessionBackends } from "@berth/db";
import { displayNameSchema, idSchema } from "@berth/validators";
import type { TRPCRouterRecord } from "@trpc/server";
import { TRPCError } from "@trpc/server";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { memberProcedure } from "../trpc.ts";
import type { RouterFixtures } from "../fixtures.ts";

const sessionFields = {
  id: true,
  title: true,
  sandboxGroupId: true,
  backend: true,
  activeSandboxId: true,
  activeEpoch: true,
  createdAt: true,
} as const;

export const sessionsRouter = {
  list: memberProcedure.query(({ ctx }) =>
    ctx.db.session.findMany({
      where: { workspaceId: ctx.workspaceId },
      select: sessionFields,
      orderBy: { createdAt: "desc" },
    }),
  ),

  get: memberProcedure.input(z.object({ sessionId: idSchema })).query(async ({ ctx, input }) => {
    const session = await ctx.db.session.findFirst({
      where: { id: input.sessionId, workspaceId: ctx.workspaceId },
      select: sessionFields,
    });
    if (session === null)
      throw new TRPCError({ code: "NOT_FOUND", message: "No such session in this workspace." });
    return session;
  }),

  /** A new agent session with its own sandbox group (and so, on first use, its own box). */
  create: memberProcedure
    .input(
      z.object({
        title: displayNameSchema,
        /** Unnamed: this server's default (BERTH_BACKEND). */
        backend: z
          .enum(sessionBackends, { error: `must be one of ${sessionBackends.join(", ")}` })
          .optional(),
      }),
    )
    .mutation(({ ctx, input }) => {
      const backend = input.backend ?? ctx.defaultBackend;
      // A session names the backend its boxes come from: one this server cannot serve is
      // refused (backend_not_configured) before anything is written, never silently local.
      ctx.boxes.requireBackend(backend);
      return ctx.db.session.create({
        data: {
          workspaceId: ctx.workspaceId,
          title: input.title,
          backend,
          sandboxGroupId: randomUUID(),
        },
        select: sessionFields,
      });
    }),
} satisfies TRPCRouterRecord;

export const sessionsFixtures: RouterFixtures<typeof sessionsRouter> = {
  list: { access: "member", scope: "tenant", input: (w) => ({ workspaceId: w.workspaceId }) },
  get: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, sessionId: w.sessionId }),
  },
  create: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, title: "t" }),
  },
};
