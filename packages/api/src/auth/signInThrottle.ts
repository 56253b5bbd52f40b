import type { DbClient } from "@berth/db";
import type { Clock } from "@berth/sandbox/clock";
import type { BetterAuthOptions } from "better-auth";
import { APIError, getIP } from "better-auth/api";
import { hashBearerSecret } from "./secrets.ts";

/** A limit: at most `max` attempts in a window of `windowSeconds`, counted from its first. */
export interface AttemptLimit {
  readonly max: number;
  readonly windowSeconds: number;
}

/** The sign-in limits: per client address (and per account and address), and per account. */
export interface SignInLimits {
  readonly perAddress: AttemptLimit;
  readonly perAccount: AttemptLimit;
}

/**
 * better-auth deletes rate-limit rows whose window started longer ago than the longest window
 * it knows of, whenever one of its windows restarts; the per-account row (same table) would go
 * after ten minutes, not an hour. A rule makes its window known. Its key matches no request
 * (paths start with "/"), so it limits nothing.
 */
const accountWindowRule = "(berth: the per-account sign-in window)";

/**
 * The per-(account, address) and per-account sign-in limits, as a before-hook step for
 * /sign-in/email (better-auth's own per-address limit runs before any hook).
 */
export function signInThrottle(options: {
  readonly db: DbClient;
  readonly clock: Clock;
  readonly signInLimits: SignInLimits;
}) {
  const { perAddress, perAccount } = options.signInLimits;
  return {
    windowRule: {
      [accountWindowRule]: { window: perAccount.windowSeconds, max: perAccount.max },
    },
    /** Counts the attempt; throws 429 when a limit refuses it. */
    async check(ctx: {
      readonly body: unknown;
      readonly request?: Request | undefined;
      readonly headers?: Headers | undefined;
      readonly context: { readonly options: BetterAuthOptions };
    }): Promise<void> {
      const email: unknown = (ctx.body as { email?: unknown } | undefined)?.email;
      if (typeof email !== "string") return;
      const from = ctx.request ?? ctx.headers;
      // The address as better-auth keys its own limit (IPv6 by /64), from the same header.
      const address = (from === undefined ? null : getIP(from, ctx.context.options)) ?? "unknown";
      const refused = await throttleSignIn(options.db, {
        email,
        address,
        perAccountAndAddress: perAddress,
        perAccount,
        nowMs: (await options.clock.now()).getTime(),
      });
      if (refused === "account_and_address")
        throw new APIError("TOO_MANY_REQUESTS", {
          message:
            "Too many sign-in attempts for this account from your address; wait a minute and try again.",
        });
      if (refused === "account")
        throw new APIError("TOO_MANY_REQUESTS", {
          message:
            "Too many sign-in attempts for this account from many addresses; try again later (within the hour).",
        });
    },
  };
}

/** Which limit refused an attempt; `null` when it may go on to the password check. */
export type ThrottleOutcome = "account_and_address" | "account" | null;

/**
 * Counts one sign-in attempt against two limits, beside better-auth's per-address one: per
 * (account, client address), then per account over every address. Only an attempt the first
 * let through counts toward the second, so a flood from one address is stopped by its own
 * counter and never uses up the account's (env.ts keeps the account's limit above what one
 * address can reach): the owner still signs in from another address. The account's limit is
 * the ceiling for an attacker spread over many addresses.
 *
 * Both counters are rows of auth_rate_limits (so every replica shares them), moved by one
 * statement: one upsert each, the second only when the first stayed within its limit. A row
 * holds its window's start and its count; the first attempt after the window starts a new one.
 */
export async function throttleSignIn(
  db: DbClient,
  input: {
    email: string;
    /** The client's address, as better-auth keys its own limit (getIP). */
    address: string;
    perAccountAndAddress: AttemptLimit;
    perAccount: AttemptLimit;
    nowMs: number;
  },
): Promise<ThrottleOutcome> {
  // The keys name the account by hash: the table holds no email addresses.
  const account = `account:${hashBearerSecret(input.email.trim().toLowerCase())}`;
  const pairKey = `${account}|address:${input.address}|/sign-in/email`;
  const accountKey = `${account}|/sign-in/email`;
  const { nowMs, perAccountAndAddress: pair, perAccount } = input;
  const pairStart = nowMs - pair.windowSeconds * 1000;
  const accountStart = nowMs - perAccount.windowSeconds * 1000;
  const rows = await db.$queryRaw<{ pair: number; account: number | null }[]>`
    WITH pair AS (
      INSERT INTO auth_rate_limits (id, key, count, last_request)
      VALUES (gen_random_uuid(), ${pairKey}::text, 1, ${nowMs}::bigint)
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN auth_rate_limits.last_request < ${pairStart}::bigint THEN 1 ELSE auth_rate_limits.count + 1 END,
        last_request = CASE WHEN auth_rate_limits.last_request < ${pairStart}::bigint THEN ${nowMs}::bigint ELSE auth_rate_limits.last_request END
      RETURNING count
    ), account AS (
      INSERT INTO auth_rate_limits (id, key, count, last_request)
      SELECT gen_random_uuid(), ${accountKey}::text, 1, ${nowMs}::bigint FROM pair WHERE pair.count <= ${pair.max}::int
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN auth_rate_limits.last_request < ${accountStart}::bigint THEN 1 ELSE auth_rate_limits.count + 1 END,
        last_request = CASE WHEN auth_rate_limits.last_request < ${accountStart}::bigint THEN ${nowMs}::bigint ELSE auth_rate_limits.last_request END
      RETURNING count
    )
    SELECT (SELECT count FROM pair) AS pair, (SELECT count FROM account) AS account`;
  const counts = rows[0];
  if (counts === undefined || counts.pair > pair.max) return "account_and_address";
  if (counts.account === null || counts.account > perAccount.max) return "account";
  return null;
}
