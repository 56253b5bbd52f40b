import type { DbClient, MembershipRole } from "@berth/db";
import type { AgentChannels, BackendKind, BoxAccess } from "@berth/sandbox";
import type { Clock } from "@berth/sandbox/clock";
import type { LeaseEventFeed } from "@berth/sandbox/events";
import { initTRPC, TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import superjson from "superjson";
import { z, ZodError } from "zod";
import type { BerthAuth } from "./auth/betterAuth.ts";
import type { Caller } from "./auth/caller.ts";
import { roleAtLeast } from "./auth/roles.ts";
import type { TokenCache } from "./auth/tokenCache.ts";
import { genericErrorCode } from "./errors/berthErrorCodes.ts";
import { mapDomainError, type BerthErrorData } from "./errors/errorTable.ts";
import { workspaceIdInput } from "./inputs.ts";

/** Facts about this process that procedures report; fixed at start. */
export interface BuildInfo {
  readonly version: string;
  readonly gitRevision: string;
  readonly databaseUrl: string;
}

/** What every procedure receives. One per request; everything but the caller is shared. */
export interface ApiContext {
  readonly db: DbClient;
  readonly build: BuildInfo;
  readonly auth: BerthAuth;
  readonly clock: Clock;
  /** The dashboard's own address, for links Berth hands out (invitations). */
  readonly publicUrl: string;
  /** The backend a new session names when its creator names none (BERTH_BACKEND). */
  readonly defaultBackend: BackendKind;
  readonly caller: Caller;
  /**
   * Whether the request came from one of Berth's own pages (its Origin, or Sec-Fetch-Site:
   * same-origin; http/ownOrigin.ts), or from Berth's own server rendering a page.
   */
  readonly sameOrigin: boolean;
  /** Calls on sessions' live boxes. */
  readonly boxes: BoxAccess;
  /** The process's one live lease-event feed (one LISTEN connection for every subscriber). */
  readonly leaseEvents: LeaseEventFeed;
  /** Verified API tokens; whoever changes a token or a membership calls `forget` after commit. */
  readonly tokens: TokenCache;
  /** The enrolled machines' agent channels this process holds. */
  readonly agentChannels: AgentChannels;
}

/** Who an audit row names for this caller. */
export interface AuditActor {
  readonly kind: "user" | "token";
  readonly id: string;
}

const t = initTRPC.context<ApiContext>().create({
  transformer: superjson,
  // Never a stack trace to a client, whatever NODE_ENV says.
  isDev: false,
  errorFormatter({ shape, error }) {
    return {
      ...shape,
      message: isInternal(error) ? "Internal error; it was logged." : shape.message,
      data: {
        ...shape.data,
        zodError: error.cause instanceof ZodError ? z.flattenError(error.cause) : null,
        berth: berthDataOf(error),
      },
    };
  },
});

/**
 * An error of a plain HTTP route (the file transfers) in the shape a tRPC error has on the wire
 * (`{ error: { message, code, data: { code, httpStatus, berth } } }`), mapped by the same table
 * and formatter rules, so a client reads both alike.
 */
export function errorReply(thrown: unknown): {
  status: number;
  body: unknown;
  /** The error, when it is internal: the caller logs it (the message says it was). */
  internal?: TRPCError;
} {
  const mapped = toTRPCError(thrown);
  const error =
    mapped instanceof TRPCError
      ? mapped
      : new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: mapped });
  const status = getHTTPStatusCodeFromError(error);
  const internal = isInternal(error);
  return {
    ...(internal ? { internal: error } : {}),
    status,
    body: {
      error: {
        message: internal ? "Internal error; it was logged." : error.message,
        code: error.code,
        data: { code: error.code, httpStatus: status, berth: berthDataOf(error) },
      },
    },
  };
}

/** Every Berth error reaches clients as `data.berth`: a domain error's own, or one from its code. */
function berthDataOf(error: TRPCError): BerthErrorData {
  if (error.cause instanceof BerthErrorCause) return error.cause.data;
  return { code: genericErrorCode(error.code), retryable: error.code === "TOO_MANY_REQUESTS" };
}

/** An error no table mapped: its details stay in the server's log, never in an answer. */
export function isInternal(error: TRPCError): boolean {
  return error.code === "INTERNAL_SERVER_ERROR" && !isBerthCause(error.cause);
}

function isBerthCause(cause: unknown): boolean {
  return cause instanceof BerthErrorCause;
}

/** Carries a mapped domain error's `data.berth` from the middleware to the formatter. */
class BerthErrorCause extends Error {
  constructor(
    readonly data: BerthErrorData,
    options: { cause: unknown },
  ) {
    super(data.code, options);
  }
}

/**
 * The API edge: a typed domain error thrown below becomes its mapped tRPC error here, once, for
 * every procedure (the table is errors/errorTable.ts).
 */
const baseProcedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (result.ok) return result;
  const mapped = toTRPCError(result.error.cause);
  if (mapped === result.error.cause) return result;
  throw mapped;
});

/** A thrown value as the API answers it: a typed domain error mapped by the one table. */
export function toTRPCError(error: unknown): unknown {
  if (error instanceof TRPCError) return error;
  const mapped = mapDomainError(error);
  if (mapped === undefined) return error;
  return new TRPCError({
    code: mapped.trpc,
    message: mapped.message,
    cause: new BerthErrorCause(mapped.berth, { cause: error }),
  });
}

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Open to anyone. */
export const publicProcedure = baseProcedure;

/**
 * A signed-in person or a token. Cookies are ambient credentials, so a cookie-authenticated
 * mutation must come from Berth's own origin (CSRF); a bearer token is never sent by a browser
 * on its own and needs no such check.
 */
export const authedProcedure = baseProcedure.use(({ ctx, type, next }) =>
  next({ ctx: requireCaller(ctx, type) }),
);

/**
 * The caller of a request that needs one (procedures and the file routes alike), and who the
 * audit log names. `type` is what the request does: a cookie mutation must be same-origin.
 */
export function requireCaller(
  ctx: ApiContext,
  type: "query" | "mutation" | "subscription",
): { caller: Exclude<Caller, { kind: "anonymous" }>; actor: AuditActor } {
  const caller = ctx.caller;
  if (caller.kind === "anonymous")
    throw new TRPCError({
      code: "UNAUTHORIZED",
      message: "Sign in, or send an API token as `Authorization: Bearer …`.",
    });
  if (type === "mutation")
    requireOwnPages(
      ctx,
      "Cross-site request refused: send mutations from Berth's own pages (Origin header).",
    );
  const actor: AuditActor =
    caller.kind === "user"
      ? { kind: "user", id: caller.userId }
      : { kind: "token", id: caller.tokenId };
  return { caller, actor };
}

/**
 * Refuses a cookie-authenticated request that did not come from Berth's own pages, with
 * `refusal` saying what to do: what a foreign page can make a browser send with the person's
 * cookie (CSRF). A bearer token is never sent by a browser on its own and needs no such check.
 */
export function requireOwnPages(ctx: ApiContext, refusal: string): void {
  if (ctx.caller.kind === "user" && !ctx.sameOrigin)
    throw new TRPCError({ code: "FORBIDDEN", message: refusal });
}

/**
 * Refuses API tokens, with `refusal` saying what to do instead: what it guards needs a person
 * signed in to the dashboard (a cookie session). Used after `memberProcedure` too, for what a
 * token must not do even inside its own workspace.
 */
export function refuseTokens(refusal: string) {
  return t.middleware(({ ctx, next }) => {
    if (ctx.caller.kind !== "user") throw new TRPCError({ code: "FORBIDDEN", message: refusal });
    return next({ ctx: { caller: ctx.caller } });
  });
}

/** Only a person signed in to the dashboard: acts beyond one workspace (creating one, joining). */
export const personProcedure = authedProcedure.use(
  refuseTokens("API tokens act inside their one workspace; sign in to the dashboard for this."),
);

/**
 * The caller's role in a workspace, read from the database on every call: a removed member or a
 * revoked token loses access at once. A token outside its own workspace has no role there.
 */
async function roleIn(
  ctx: ApiContext & { caller: Exclude<Caller, { kind: "anonymous" }> },
  workspaceId: string,
): Promise<MembershipRole | undefined> {
  if (ctx.caller.kind === "token")
    return ctx.caller.workspaceId === workspaceId ? ctx.caller.role : undefined;
  const membership = await ctx.db.membership.findUnique({
    where: { workspaceId_userId: { workspaceId, userId: ctx.caller.userId } },
    select: { role: true },
  });
  return membership?.role as MembershipRole | undefined;
}

/**
 * member(workspaceId): the input names the workspace; a caller who is not a member gets
 * NOT_FOUND (never a hint that the workspace exists). Procedures then filter every query by
 * `ctx.workspaceId` in the query itself.
 */
export const memberProcedure = authedProcedure
  .input(workspaceIdInput)
  .use(async ({ ctx, input, next }) =>
    next({
      ctx: { workspaceId: input.workspaceId, role: await requireRole(ctx, input.workspaceId) },
    }),
  );

/** The caller's role in the workspace, or NOT_FOUND: the one membership gate. */
export async function requireRole(
  ctx: ApiContext & { caller: Exclude<Caller, { kind: "anonymous" }> },
  workspaceId: string,
): Promise<MembershipRole> {
  const role = await roleIn(ctx, workspaceId);
  if (role === undefined)
    throw new TRPCError({
      code: "NOT_FOUND",
      message: "No such workspace, or you are not a member of it.",
    });
  return role;
}

/** admin(workspaceId): a member whose role (capped by the token's, for a token) is admin or owner. */
export const adminProcedure = memberProcedure.use(({ ctx, next }) => {
  if (!roleAtLeast(ctx.role, "admin"))
    throw new TRPCError({ code: "FORBIDDEN", message: "Only a workspace admin may do this." });
  return next();
});

/** What a member (or admin) procedure's handler sees. */
export interface MemberContext extends ApiContext {
  readonly caller: Exclude<Caller, { kind: "anonymous" }>;
  readonly actor: AuditActor;
  readonly workspaceId: string;
  readonly role: MembershipRole;
}
