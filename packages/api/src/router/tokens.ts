import { displayNameSchema, idSchema, tokenLifetimeDaysSchema } from "@berth/validators";
import type { TRPCRouterRecord } from "@trpc/server";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { roleAtLeast } from "../auth/roles.ts";
import { hashBearerSecret, newBearerSecret } from "../auth/secrets.ts";
import { writeAudit } from "../audit.ts";
import { roleSchema } from "../inputs.ts";
import { memberProcedure, refuseTokens } from "../trpc.ts";
import type { RouterFixtures } from "../fixtures.ts";

/** Everything about a token that may be shown again: never the token, never its hash. */
const tokenFields = {
  id: true,
  name: true,
  role: true,
  userId: true,
  createdAt: true,
  lastUsedAt: true,
  expiresAt: true,
  revokedAt: true,
} as const;

export const tokensRouter = {
  /**
   * A token for scripts and the CLI, for this one workspace, with a role no higher than the
   * creator's. The token is in this response only; Berth keeps its sha256.
   *
   * Only a person mints tokens: a token that could would make its own expiry and revocation
   * meaningless, since it could mint a never-expiring one that outlives it.
   */
  create: memberProcedure
    .use(
      refuseTokens(
        "API tokens cannot create tokens; sign in to the dashboard (or run `berth login`) to create one.",
      ),
    )
    .input(
      z.object({
        name: displayNameSchema,
        role: roleSchema.default("member"),
        expiresInDays: tokenLifetimeDaysSchema.default(90),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      if (!roleAtLeast(ctx.role, input.role))
        throw new TRPCError({
          code: "FORBIDDEN",
          message: `A ${ctx.role} cannot create a token with the ${input.role} role.`,
        });
      const token = newBearerSecret("berth_tok");
      const now = await ctx.clock.now();
      const row = await ctx.db.$transaction(async (tx) => {
        const created = await tx.apiToken.create({
          data: {
            workspaceId: ctx.workspaceId,
            userId: ctx.caller.userId,
            name: input.name,
            role: input.role,
            tokenHash: hashBearerSecret(token),
            createdAt: now,
            expiresAt:
              input.expiresInDays === null
                ? null
                : new Date(now.getTime() + input.expiresInDays * 86_400_000),
          },
          select: tokenFields,
        });
        await writeAudit(tx, {
          workspaceId: ctx.workspaceId,
          actor: ctx.actor,
          action: "token.create",
          target: { kind: "api_token", id: created.id },
          after: {
            name: created.name,
            role: created.role,
            expiresAt: created.expiresAt?.toISOString() ?? null,
          },
          at: now,
        });
        return created;
      });
      return { ...row, token };
    }),

  /** A member sees their own tokens; an admin sees every token of the workspace. */
  list: memberProcedure.query(({ ctx }) =>
    ctx.db.apiToken.findMany({
      where: {
        workspaceId: ctx.workspaceId,
        ...(roleAtLeast(ctx.role, "admin") ? {} : { userId: ctx.caller.userId }),
      },
      select: { ...tokenFields, user: { select: { email: true } } },
      orderBy: { createdAt: "desc" },
    }),
  ),

  /**
   * Takes effect on the token's next call. A member revokes their own; an admin any here. A token
   * may call this too: revoking only takes power away (a script retiring itself, an admin script
   * cleaning up), so it cannot outlive anyone the way minting could.
   */
  revoke: memberProcedure
    .input(z.object({ tokenId: idSchema }))
    .mutation(async ({ ctx, input }) => {
      const now = await ctx.clock.now();
      const revoked = await ctx.db.$transaction(async (tx) => {
        const { count } = await tx.apiToken.updateMany({
          where: {
            id: input.tokenId,
            workspaceId: ctx.workspaceId,
            revokedAt: null,
            ...(roleAtLeast(ctx.role, "admin") ? {} : { userId: ctx.caller.userId }),
          },
          data: { revokedAt: now },
        });
        if (count === 0)
          throw new TRPCError({
            code: "NOT_FOUND",
            message: "No active token of yours with that id here.",
          });
        await writeAudit(tx, {
          workspaceId: ctx.workspaceId,
          actor: ctx.actor,
          action: "token.revoke",
          target: { kind: "api_token", id: input.tokenId },
          at: now,
        });
        return { tokenId: input.tokenId, revokedAt: now };
      });
      // Committed: this process's cached tokens go now; other replicas' on the trigger's NOTIFY.
      ctx.tokens.forget();
      return revoked;
    }),
} satisfies TRPCRouterRecord;

export const tokensFixtures: RouterFixtures<typeof tokensRouter> = {
  create: {
    access: "person",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, name: "ci", role: "member" }),
  },
  list: { access: "member", scope: "tenant", input: (w) => ({ workspaceId: w.workspaceId }) },
  revoke: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, tokenId: w.tokenId }),
  },
};
