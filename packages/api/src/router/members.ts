import { idSchema } from "@berth/validators";
import type { MembershipRole } from "@berth/db";
import type { TRPCRouterRecord } from "@trpc/server";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { lowerRole, roleAtLeast } from "../auth/roles.ts";
import { writeAudit } from "../audit.ts";
import { roleSchema } from "../inputs.ts";
import { adminProcedure, memberProcedure, type MemberContext } from "../trpc.ts";
import type { RouterFixtures } from "../fixtures.ts";

/**
 * Whether an actor of role `actor` may move someone from `from` to `to` (null: remove): nobody
 * hands out or takes away more than they hold, so only an owner touches owners.
 */
function mayChange(
  actor: MembershipRole,
  from: MembershipRole,
  to: MembershipRole | null,
): boolean {
  return roleAtLeast(actor, from) && (to === null || roleAtLeast(actor, to));
}

export const membersRouter = {
  list: memberProcedure.query(({ ctx }) =>
    ctx.db.membership.findMany({
      where: { workspaceId: ctx.workspaceId },
      select: {
        userId: true,
        role: true,
        createdAt: true,
        user: { select: { email: true, name: true } },
      },
      orderBy: { createdAt: "asc" },
    }),
  ),

  setRole: adminProcedure
    .input(z.object({ userId: idSchema, role: roleSchema }))
    .mutation(({ ctx, input }) => changeMembership(ctx, input.userId, input.role)),

  remove: adminProcedure
    .input(z.object({ userId: idSchema }))
    .mutation(({ ctx, input }) => changeMembership(ctx, input.userId, null)),
} satisfies TRPCRouterRecord;

/**
 * Changes or removes one membership. The workspace's owner rows are locked first, so two owners
 * demoting each other at once cannot leave a workspace without an owner.
 */
async function changeMembership(
  ctx: MemberContext,
  userId: string,
  to: MembershipRole | null,
): Promise<{ userId: string; role: MembershipRole | null }> {
  const now = await ctx.clock.now();
  const changed = await ctx.db.$transaction(async (tx) => {
    // The owners' rows and the actor's own, locked: the checks below see roles no one can change
    // until this commits (the role read before the transaction may already be stale).
    const locked = await tx.$queryRaw<{ user_id: string; role: MembershipRole }[]>`
      SELECT user_id::text, role FROM memberships
      WHERE workspace_id = ${ctx.workspaceId}::uuid AND (role = 'owner' OR user_id = ${ctx.caller.userId}::uuid)
      FOR UPDATE`;
    const actorNow = locked.find((row) => row.user_id === ctx.caller.userId)?.role;
    if (actorNow === undefined)
      throw new TRPCError({
        code: "NOT_FOUND",
        message: "No such workspace, or you are not a member of it.",
      });
    const actorRole = lowerRole(ctx.role, actorNow);
    const current = await tx.membership.findUnique({
      where: { workspaceId_userId: { workspaceId: ctx.workspaceId, userId } },
      select: { id: true, role: true },
    });
    if (current === null)
      throw new TRPCError({ code: "NOT_FOUND", message: "No such member in this workspace." });
    const from = current.role as MembershipRole;
    if (!mayChange(actorRole, from, to))
      throw new TRPCError({
        code: "FORBIDDEN",
        message: `A ${actorRole} cannot ${to === null ? "remove" : "change the role of"} a ${from}${to === null || to === from ? "" : ` to ${to}`}.`,
      });
    if (from === "owner" && to !== "owner") {
      const owners = await tx.membership.count({
        where: { workspaceId: ctx.workspaceId, role: "owner" },
      });
      if (owners <= 1)
        throw new TRPCError({
          code: "PRECONDITION_FAILED",
          message: "A workspace keeps at least one owner: make someone else owner first.",
        });
    }
    if (to === null) await tx.membership.delete({ where: { id: current.id } });
    else await tx.membership.update({ where: { id: current.id }, data: { role: to } });
    // A removed member's tokens for this workspace stop at once (they also fail the membership
    // check); revoking them keeps the token list honest.
    if (to === null)
      await tx.apiToken.updateMany({
        where: { workspaceId: ctx.workspaceId, userId, revokedAt: null },
        data: { revokedAt: now },
      });
    await writeAudit(tx, {
      workspaceId: ctx.workspaceId,
      actor: ctx.actor,
      action: to === null ? "member.remove" : "member.set_role",
      target: { kind: "user", id: userId },
      before: { role: from },
      ...(to === null ? {} : { after: { role: to } }),
      at: now,
    });
    return { userId, role: to };
  });
  // Committed: this process's cached tokens go now; other replicas' on the trigger's NOTIFY.
  ctx.tokens.forget();
  return changed;
}

export const membersFixtures: RouterFixtures<typeof membersRouter> = {
  list: { access: "member", scope: "tenant", input: (w) => ({ workspaceId: w.workspaceId }) },
  setRole: {
    access: "admin",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, userId: w.memberUserId, role: "admin" }),
  },
  remove: {
    access: "admin",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, userId: w.spareUserId }),
  },
};
