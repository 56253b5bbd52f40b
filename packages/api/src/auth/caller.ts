import type { DbClient, MembershipRole } from "@berth/db";
import type { Clock } from "@berth/sandbox/clock";
import type { BerthAuth } from "./betterAuth.ts";
import { isMembershipRole, lowerRole } from "./roles.ts";
import { hashBearerSecret } from "./secrets.ts";

/** Who is calling: nobody, a signed-in person (cookie), or a script with an API token. */
export type Caller =
  | { readonly kind: "anonymous" }
  | { readonly kind: "user"; readonly userId: string; readonly authSessionId: string }
  | {
      readonly kind: "token";
      readonly userId: string;
      readonly tokenId: string;
      /** A token acts in exactly one workspace... */
      readonly workspaceId: string;
      /** ...with the lower of its own role and its user's current role there. */
      readonly role: MembershipRole;
    };

/** Why a presented credential was refused; a refused credential never falls back to anonymous. */
export class CredentialRefusedError extends Error {
  override readonly name = "CredentialRefusedError";
  constructor(
    readonly reason: "token_unknown" | "token_revoked" | "token_expired" | "not_a_member",
  ) {
    super(
      {
        token_unknown: "This API token is not known; create a new one in the dashboard.",
        token_revoked: "This API token was revoked; create a new one in the dashboard.",
        token_expired: "This API token has expired; create a new one in the dashboard.",
        not_a_member: "This API token's user is no longer a member of its workspace.",
      }[reason],
    );
  }
}

/** last_used_at is written at most this often per token, so a busy script is not a write per call. */
const lastUsedResolutionMs = 60_000;

/**
 * Resolves the caller from a request's headers: a `Bearer` token first (scripts), else the
 * better-auth session cookie. Every call re-reads the token row, so revocation and expiry apply
 * on the very next call.
 */
export async function resolveCaller(input: {
  headers: Headers;
  db: DbClient;
  auth: BerthAuth;
  clock: Clock;
}): Promise<Caller> {
  const authorization = input.headers.get("authorization");
  const bearer = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (bearer !== undefined) return resolveToken(bearer, input);
  const session = await input.auth.api.getSession({ headers: input.headers });
  if (session === null) return { kind: "anonymous" };
  return { kind: "user", userId: session.user.id, authSessionId: session.session.id };
}

async function resolveToken(token: string, input: { db: DbClient; clock: Clock }): Promise<Caller> {
  const row = await input.db.apiToken.findUnique({
    where: { tokenHash: hashBearerSecret(token) },
    select: {
      id: true,
      userId: true,
      workspaceId: true,
      role: true,
      expiresAt: true,
      revokedAt: true,
      lastUsedAt: true,
      user: { select: { memberships: { select: { role: true, workspaceId: true } } } },
    },
  });
  if (row === null) throw new CredentialRefusedError("token_unknown");
  if (row.revokedAt !== null) throw new CredentialRefusedError("token_revoked");
  const now = await input.clock.now();
  if (row.expiresAt !== null && row.expiresAt <= now)
    throw new CredentialRefusedError("token_expired");
  const membership = row.user.memberships.find((m) => m.workspaceId === row.workspaceId);
  if (membership === undefined || !isMembershipRole(membership.role) || !isMembershipRole(row.role))
    throw new CredentialRefusedError("not_a_member");
  if (row.lastUsedAt === null || now.getTime() - row.lastUsedAt.getTime() >= lastUsedResolutionMs)
    await input.db.apiToken.updateMany({
      where: { id: row.id, revokedAt: null },
      data: { lastUsedAt: now },
    });
  return {
    kind: "token",
    userId: row.userId,
    tokenId: row.id,
    workspaceId: row.workspaceId,
    role: lowerRole(row.role, membership.role),
  };
}
