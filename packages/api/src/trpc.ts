import type { DbClient } from "@berth/db";
import { initTRPC } from "@trpc/server";
import superjson from "superjson";
import { z, ZodError } from "zod";

/** Facts about this process that procedures report; fixed at start. */
export interface BuildInfo {
  readonly version: string;
  readonly gitRevision: string;
  readonly databaseUrl: string;
}

/** What every procedure receives. One per request; the db client is shared by the process. */
export interface ApiContext {
  readonly db: DbClient;
  readonly build: BuildInfo;
}

const t = initTRPC.context<ApiContext>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    return {
      ...shape,
      data: {
        ...shape.data,
        zodError: error.cause instanceof ZodError ? z.flattenError(error.cause) : null,
      },
    };
  },
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Open to anyone: identity arrives with the sign-in issue, and every other procedure will need it. */
export const publicProcedure = t.procedure;
