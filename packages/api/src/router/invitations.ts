import type { MembershipRole } from "@berth/db";
import { idSchema } from "@berth/validators";
import type { TRPCRouterRecord } from "@trpc/server";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { roleAtLeast } from "../auth/roles.ts";
import { hashBearerSecret, newBearerSecret } from "../auth/secrets.ts";
import { writeAudit } from "../audit.ts";
import { roleSchema } from "../inputs.ts";
import {
  adminProcedure,
  personProcedure,
  publicProcedure,
  refuseTokens,
  type ApiContext,
} from "../trpc.ts";
import type { RouterFixtures } from "../fixtures.ts";

const tokenInput = z.object({
  token: z.string().min(1, "must not be empty").max(200, "is too long"),
});

/**
 * A pending invitation's row, by the token in its link, that the person with `email` may use
 * (null: someone without an account). Once an account was created with the link, it is that
 * account's alone: one link, one person.
 */
function pendingWhere(token: string, now: Date, email: string | null) {
  return {
    tokenHash: hashBearerSecret(token),
    acceptedAt: null,
    revokedAt: null,
    expiresAt: { gt: now },
    OR: [{ signUpEmail: null }, ...(email === null ? [] : [{ signUpEmail: email }])],
  };
}

/** The email of the person signed in, if the caller is one. */
async function personEmail(ctx: ApiContext): Promise<string | null> {
  if (ctx.caller.kind !== "user") return null;
  const user = await ctx.db.user.findUnique({
    where: { id: ctx.caller.userId },
    select: { email: true },
  });
  return user?.email ?? null;
}

export const invitationsRouter = {
  /**
   * A one-time link that lets its holder join with `role` (at most the admin's own). No mail is
   * sent: the link is returned once, to the admin, and only its hash is kept.
   *
   * Only a person invites: a token that could would hand out memberships that outlive its own
   * expiry and revocation, as a token minting tokens would.
   */
  create: adminProcedure
    .use(
      refuseTokens(
        "API tokens cannot create invitations; sign in to the dashboard to invite someone.",
      ),
    )
    .input(
      z.object({
        role: roleSchema,
        expiresInHours: z
          .number()
          .int()
          .min(1)
          .max(24 * 30)
          .default(72),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      if (!roleAtLeast(ctx.role, input.role))
        throw new TRPCError({
          code: "FORBIDDEN",
          message: `A ${ctx.role} cannot invite someone as ${input.role}.`,
        });
      const token = newBearerSecret("berth_inv");
      const now = await ctx.clock.now();
      const expiresAt = new Date(now.getTime() + input.expiresInHours * 3_600_000);
      const invitation = await ctx.db.$transaction(async (tx) => {
        const row = await tx.invitation.create({
          data: {
            workspaceId: ctx.workspaceId,
            role: input.role,
            tokenHash: hashBearerSecret(token),
            createdById: ctx.caller.userId,
            createdAt: now,
            expiresAt,
          },
          select: { id: true, role: true, expiresAt: true },
        });
        await writeAudit(tx, {
          workspaceId: ctx.workspaceId,
          actor: ctx.actor,
          action: "invitation.create",
          target: { kind: "invitation", id: row.id },
          after: { role: row.role, expiresAt: row.expiresAt.toISOString() },
          at: now,
        });
        return row;
      });
      return { ...invitation, url: `${ctx.publicUrl}/invite/${token}` };
    }),

  list: adminProcedure.query(async ({ ctx }) =>
    ctx.db.invitation.findMany({
      where: { workspaceId: ctx.workspaceId, acceptedAt: null, revokedAt: null },
      select: {
        id: true,
        role: true,
        createdAt: true,
        expiresAt: true,
        createdBy: { select: { email: true } },
      },
      orderBy: { createdAt: "desc" },
    }),
  ),

  revoke: adminProcedure
    .input(z.object({ invitationId: idSchema }))
    .mutation(async ({ ctx, input }) => {
      const now = await ctx.clock.now();
      return ctx.db.$transaction(async (tx) => {
        const { count } = await tx.invitation.updateMany({
          where: {
            id: input.invitationId,
            workspaceId: ctx.workspaceId,
            acceptedAt: null,
            revokedAt: null,
          },
          data: { revokedAt: now },
        });
        if (count === 0)
          throw new TRPCError({
            code: "NOT_FOUND",
            message: "No pending invitation with that id here.",
          });
        await writeAudit(tx, {
          workspaceId: ctx.workspaceId,
          actor: ctx.actor,
          action: "invitation.revoke",
          target: { kind: "invitation", id: input.invitationId },
          at: now,
        });
        return { invitationId: input.invitationId };
      });
    }),

  /** What an invitation link offers, for the page that accepts it; the token is the capability. */
  preview: publicProcedure.input(tokenInput).query(async ({ ctx, input }) => {
    const row = await ctx.db.invitation.findFirst({
      where: pendingWhere(input.token, await ctx.clock.now(), await personEmail(ctx)),
      select: { role: true, expiresAt: true, workspace: { select: { name: true, slug: true } } },
    });
    if (row === null)
      throw new TRPCError({
        code: "NOT_FOUND",
        message:
          "This invitation is unknown, used, revoked or expired; ask the admin for a new link.",
      });
    return row;
  }),

  /**
   * Joins the invitation's workspace. One use: the accepting update is a compare-and-swap on a
   * still-pending row, so two people racing on one link cannot both join. A link an account was
   * created with joins that account only.
   */
  accept: personProcedure.input(tokenInput).mutation(async ({ ctx, input }) => {
    const now = await ctx.clock.now();
    const pending = pendingWhere(input.token, now, await personEmail(ctx));
    return ctx.db.$transaction(async (tx) => {
      const row = await tx.invitation.findFirst({
        where: pending,
        select: { id: true, workspaceId: true, role: true },
      });
      const { count } =
        row === null
          ? { count: 0 }
          : await tx.invitation.updateMany({
              where: { ...pending, id: row.id },
              data: { acceptedAt: now, acceptedById: ctx.caller.userId },
            });
      if (row === null || count === 0)
        throw new TRPCError({
          code: "NOT_FOUND",
          message:
            "This invitation is unknown, used, revoked or expired; ask the admin for a new link.",
        });
      const existing = await tx.membership.findUnique({
        where: { workspaceId_userId: { workspaceId: row.workspaceId, userId: ctx.caller.userId } },
        select: { role: true },
      });
      if (existing !== null)
        throw new TRPCError({
          code: "CONFLICT",
          message: `You are already a ${existing.role} of this workspace.`,
        });
      await tx.membership.create({
        data: {
          workspaceId: row.workspaceId,
          userId: ctx.caller.userId,
          role: row.role,
          createdAt: now,
        },
      });
      await writeAudit(tx, {
        workspaceId: row.workspaceId,
        actor: { kind: "user", id: ctx.caller.userId },
        action: "invitation.accept",
        target: { kind: "invitation", id: row.id },
        after: { userId: ctx.caller.userId, role: row.role },
        at: now,
      });
      return { workspaceId: row.workspaceId, role: row.role as MembershipRole };
    });
  }),
} satisfies TRPCRouterRecord;

export const invitationsFixtures: RouterFixtures<typeof invitationsRouter> = {
  create: {
    access: "admin",
    scope: "tenant",
    refusesTokens: true,
    input: (w) => ({ workspaceId: w.workspaceId, role: "member" }),
  },
  list: { access: "admin", scope: "tenant", input: (w) => ({ workspaceId: w.workspaceId }) },
  revoke: {
    access: "admin",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, invitationId: w.invitationId }),
  },
  preview: { access: "public", scope: "capability", input: (w) => ({ token: w.invitationToken }) },
  accept: { access: "person", scope: "capability", input: (w) => ({ token: w.invitationToken }) },
};
