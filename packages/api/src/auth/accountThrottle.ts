import type { DbClient } from "@berth/db";
import { hashBearerSecret } from "./secrets.ts";

/**
 * Counts sign-in attempts per account, beside better-auth's per-address limit: a client can
 * rotate the address it claims (X-Forwarded-For), not the account it attacks. One upsert, so
 * concurrent attempts from every replica are all counted. Returns whether this attempt is over
 * the limit.
 */
export async function overAccountLimit(
  db: DbClient,
  input: { email: string; max: number; windowSeconds: number; nowMs: number },
): Promise<boolean> {
  // The key names the account by hash: the table holds no email addresses.
  const key = `account:${hashBearerSecret(input.email.trim().toLowerCase())}|/sign-in/email`;
  const windowStart = input.nowMs - input.windowSeconds * 1000;
  const rows = await db.$queryRaw<{ count: number }[]>`
    INSERT INTO auth_rate_limits (id, key, count, last_request)
    VALUES (gen_random_uuid(), ${key}, 1, ${input.nowMs})
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN auth_rate_limits.last_request < ${windowStart} THEN 1 ELSE auth_rate_limits.count + 1 END,
      last_request = CASE WHEN auth_rate_limits.last_request < ${windowStart} THEN ${input.nowMs} ELSE auth_rate_limits.last_request END
    RETURNING count`;
  return (rows[0]?.count ?? 0) > input.max;
}
