import type { DbClient } from "@berth/db";
import type { Clock } from "@berth/sandbox/clock";
import { signUpSchema } from "@berth/validators";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { createAuthMiddleware } from "better-auth/api";
import { clientAddressHeader } from "../http/clientAddress.ts";
import { parseAuthBody, profileUpdateSchema, refuseNulFields } from "./authInput.ts";
import { refuseForeignOrigin } from "./originGuard.ts";
import { hashPassword, verifyPassword } from "./passwordHash.ts";
import { deriveSecret } from "./secrets.ts";
import { withoutSessionToken } from "./sessionTokenBody.ts";
import { signInThrottle, type SignInLimits } from "./signInThrottle.ts";
import { checkSignUpInvitation, claimSignUpInvitation } from "./signUpInvitation.ts";

/**
 * Who may create an account: anyone, or only someone holding a pending invitation link (one
 * account per link).
 */
export type SignUpPolicy = "open" | "invitation";

export interface AuthOptions {
  readonly db: DbClient;
  readonly berthSecret: string;
  /** Where the dashboard is served; https here makes every auth cookie Secure. */
  readonly publicUrl: string;
  readonly trustedOrigins: readonly string[];
  readonly signUp: SignUpPolicy;
  readonly signInLimits: SignInLimits;
  /** The time sign-in counters are kept in (Berth's clock: the database's, or a test's). */
  readonly clock: Clock;
}

/** The header that carries an invitation token to sign-up under the `invitation` policy. */
export const invitationHeader = "x-berth-invitation";

/**
 * better-auth over Berth's own User table (its session, account, verification and rate-limit
 * models are renamed Auth*: `Session` is the agent session). Passwords are argon2id; ids are
 * uuids; the cookie-signing key derives from BERTH_SECRET; throttling counters live in Postgres so
 * every web replica shares them. Bodies that write a person are parsed with Berth's schemas
 * (authInput.ts); under the `invitation` policy an invitation link creates at most one account
 * (signUpInvitation.ts).
 */
export function createAuth(options: AuthOptions) {
  const throttle = signInThrottle(options);
  return betterAuth({
    appName: "Berth",
    baseURL: options.publicUrl,
    basePath: "/api/auth",
    secret: deriveSecret(options.berthSecret, "auth-cookie-signing"),
    trustedOrigins: [...options.trustedOrigins],
    database: prismaAdapter(options.db, { provider: "postgresql" }),
    telemetry: { enabled: false },
    user: { modelName: "user" },
    session: { modelName: "authSession" },
    account: { modelName: "authAccount" },
    // Verification values (e.g. reset tokens) are kept hashed. Session tokens are kept as
    // better-auth keeps them, but a cookie carries the token with an HMAC under a key derived
    // from BERTH_SECRET, so the table alone signs no one in.
    verification: { modelName: "authVerification", storeIdentifier: "hashed" },
    emailAndPassword: {
      enabled: true,
      minPasswordLength: 8,
      maxPasswordLength: 256,
      password: { hash: hashPassword, verify: verifyPassword },
    },
    rateLimit: {
      enabled: true,
      storage: "database",
      modelName: "authRateLimit",
      window: 60,
      max: 200,
      customRules: {
        "/sign-in/email": {
          window: options.signInLimits.perAddress.windowSeconds,
          max: options.signInLimits.perAddress.max,
        },
        "/sign-up/email": { window: 600, max: 10 },
        ...throttle.windowRule,
      },
    },
    advanced: {
      // The client's address is read only from the header Berth's HTTP edges set from the
      // socket and BERTH_TRUSTED_PROXIES (http/clientAddress.ts), never from X-Forwarded-For,
      // which any client can write.
      ipAddress: { ipAddressHeaders: [clientAddressHeader] },
      database: { generateId: "uuid" },
      cookiePrefix: "berth",
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" },
    },
    databaseHooks: {
      user: {
        create: {
          // The claim, as late as it can be: right before the account's row is written.
          async before(user, context) {
            if (options.signUp === "open") return;
            await claimSignUpInvitation(options.db, {
              token: context?.headers?.get(invitationHeader),
              email: user.email,
              now: new Date(),
            });
          },
        },
      },
    },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        // Only a request that arrived over HTTP: Berth's own calls (reading a session) have none.
        if (ctx.request !== undefined)
          refuseForeignOrigin(ctx.request.method, ctx.headers, options.trustedOrigins);
        refuseNulFields({ body: ctx.body, query: ctx.query });
        if (ctx.path === "/sign-in/email") {
          await throttle.check(ctx);
          return;
        }
        if (ctx.path === "/update-user")
          return { context: { body: parseAuthBody(profileUpdateSchema, ctx.body) } };
        if (ctx.path !== "/sign-up/email") return;
        const body = parseAuthBody(signUpSchema, ctx.body);
        if (options.signUp === "invitation")
          await checkSignUpInvitation(options.db, {
            token: ctx.headers?.get(invitationHeader),
            email: body.email.toLowerCase(),
            now: new Date(),
          });
        return { context: { body } };
      }),
      after: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== "/sign-in/email" && ctx.path !== "/sign-up/email") return;
        const body = withoutSessionToken(ctx.context.returned);
        if (body !== undefined) return ctx.json(body);
      }),
    },
  });
}

export type BerthAuth = ReturnType<typeof createAuth>;
