import { createDbClient, type DbClient } from "@berth/db";
import { DatabaseClock, type Clock } from "@berth/sandbox/clock";
import { TRPCError } from "@trpc/server";
import { createAuth, type BerthAuth } from "./auth/betterAuth.ts";
import { CredentialRefusedError, resolveCaller } from "./auth/caller.ts";
import type { ApiEnv } from "./env.ts";
import { appRouter } from "./root.ts";
import type { ApiContext, BuildInfo } from "./trpc.ts";

/** One process's API: the router, sign-in, and the per-request context over one db client. */
export interface BerthApi {
  readonly router: typeof appRouter;
  readonly auth: BerthAuth;
  /** better-auth's handler for everything under /api/auth (sign-in, sign-up, sign-out). */
  handleAuth(request: Request): Promise<Response>;
  /** Resolves the caller from the request's cookie or bearer token. */
  createContext(request: { headers: Headers }): Promise<ApiContext>;
  close(): Promise<void>;
}

/** The origins a browser may send cookie-authenticated mutations from. */
export function trustedOrigins(publicUrl: string): string[] {
  const url = new URL(publicUrl);
  const loopback = ["127.0.0.1", "localhost", "[::1]"];
  if (!loopback.includes(url.hostname)) return [url.origin];
  // On one machine the same server answers to every loopback name.
  return loopback.map((host) => `${url.protocol}//${host}${url.port === "" ? "" : `:${url.port}`}`);
}

/** Builds the API from validated environment; the only place the API's db client is made. */
export function createBerthApi(env: ApiEnv, options: { clock?: Clock } = {}): BerthApi {
  const db: DbClient = createDbClient({ connectionString: env.DATABASE_URL });
  const clock = options.clock ?? new DatabaseClock(db);
  const origins = trustedOrigins(env.BERTH_PUBLIC_URL);
  const auth = createAuth({
    db,
    berthSecret: env.BERTH_SECRET,
    publicUrl: env.BERTH_PUBLIC_URL,
    trustedOrigins: origins,
    signUp: env.BERTH_SIGNUP,
    signInLimit: { max: env.BERTH_SIGNIN_ATTEMPTS_PER_MINUTE, windowSeconds: 60 },
  });
  const build: BuildInfo = {
    version: env.BERTH_VERSION,
    gitRevision: env.BERTH_GIT_REVISION,
    databaseUrl: env.DATABASE_URL,
  };
  return {
    router: appRouter,
    auth,
    handleAuth: (request) => auth.handler(request),
    async createContext({ headers }) {
      const caller = await resolveCaller({ headers, db, auth, clock }).catch((error: unknown) => {
        if (error instanceof CredentialRefusedError)
          throw new TRPCError({ code: "UNAUTHORIZED", message: error.message, cause: error });
        throw error;
      });
      const origin = headers.get("origin");
      return {
        db,
        build,
        auth,
        clock,
        publicUrl: env.BERTH_PUBLIC_URL,
        caller,
        sameOrigin: origin !== null && origins.includes(origin),
      };
    },
    close: () => db.$disconnect(),
  };
}
