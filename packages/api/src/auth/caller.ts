import { preparedOnce, queryRows, type DbClient, type MembershipRole } from "@berth/db";
import type { Clock } from "@berth/sandbox/clock";
import type { BerthAuth } from "./betterAuth.ts";
import { isMembershipRole, lowerRole } from "./roles.ts";
import { hashBearerSecret } from "./secrets.ts";
import type { TokenCache, VerifiedToken } from "./tokenCache.ts";

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

interface TokenRow {
  readonly id: string;
  readonly user_id: string;
  readonly workspace_id: string;
  readonly role: string;
  readonly revoked: boolean;
  readonly expired: boolean;
  readonly expires_at: Date | null;
  /** last_used_at is older than its resolution (or unset): time to write it again. */
  readonly stale_use: boolean;
  readonly member_role: string | null;
}

/**
 * The token and its user's membership in the token's workspace, joined: one round trip, on
 * every call a token makes, so it is prepared once per connection. Times are compared here,
 * against the caller's clock ($2), so no timestamp has to be read back.
 * last_used_at is written at most once a minute per token, so a busy script is not a write per call.
 */
const TOKEN_LOOKUP = preparedOnce(`
  SELECT t.id, t.user_id, t.workspace_id, t.role,
         t.revoked_at IS NOT NULL AS revoked,
         COALESCE(t.expires_at <= $2::timestamptz, false) AS expired, t.expires_at,
         COALESCE(t.last_used_at <= $2::timestamptz - interval '1 minute', true) AS stale_use,
         m.role AS member_role
    FROM api_tokens t
    LEFT JOIN memberships m ON m.workspace_id = t.workspace_id AND m.user_id = t.user_id
   WHERE t.token_hash = $1`);

/**
 * Resolves the caller from a request's headers: a `Bearer` token first (scripts), else the
 * better-auth session cookie. A token is read from `tokens` while that cache is trusted (see
 * TokenCache: it forgets on every change to a token or membership), else looked up; revocation
 * applies on the revoking process's next call, and on other replicas' once its NOTIFY lands.
 */
export async function resolveCaller(input: {
  headers: Headers;
  db: DbClient;
  auth: BerthAuth;
  clock: Clock;
  tokens: TokenCache;
}): Promise<Caller> {
  const authorization = input.headers.get("authorization");
  const bearer = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (bearer !== undefined) return resolveToken(bearer, input);
  const session = await input.auth.api.getSession({ headers: input.headers });
  if (session === null) return { kind: "anonymous" };
  return { kind: "user", userId: session.user.id, authSessionId: session.session.id };
}

async function resolveToken(
  token: string,
  input: { db: DbClient; clock: Clock; tokens: TokenCache },
): Promise<Caller> {
  const now = await input.clock.now();
  const hash = hashBearerSecret(token);
  const cached = input.tokens.get(hash, now.getTime());
  if (cached !== null) {
    if (cached.expiresAt !== null && cached.expiresAt <= now)
      throw new CredentialRefusedError("token_expired");
    return tokenCaller(cached);
  }
  const generation = await input.tokens.begin();
  const rows = await queryRows<TokenRow>(input.db, TOKEN_LOOKUP, [hash, now]);
  const row = rows[0] ?? null;
  if (row === null) throw new CredentialRefusedError("token_unknown");
  if (row.revoked) throw new CredentialRefusedError("token_revoked");
  if (row.expired) throw new CredentialRefusedError("token_expired");
  const memberRole = row.member_role;
  if (memberRole === null || !isMembershipRole(memberRole) || !isMembershipRole(row.role))
    throw new CredentialRefusedError("not_a_member");
  if (row.stale_use)
    await input.db.apiToken.updateMany({
      where: { id: row.id, revokedAt: null },
      data: { lastUsedAt: now },
    });
  const verified: VerifiedToken = {
    tokenId: row.id,
    userId: row.user_id,
    workspaceId: row.workspace_id,
    role: lowerRole(row.role, memberRole),
    expiresAt: row.expires_at,
    verifiedAtMs: now.getTime(),
  };
  input.tokens.put(hash, generation, verified);
  return tokenCaller(verified);
}

function tokenCaller(token: VerifiedToken): Caller {
  return {
    kind: "token",
    userId: token.userId,
    tokenId: token.tokenId,
    workspaceId: token.workspaceId,
    role: token.role,
  };
}
