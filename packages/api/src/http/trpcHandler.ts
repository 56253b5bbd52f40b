import type { AnyTRPCRouter } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { ApiLogger } from "../logger.ts";
import { isInternal, type ApiContext } from "../trpc.ts";

/**
 * The tRPC endpoint at /api/trpc, for the dashboard's route and serveApi alike. An internal
 * error reaches the client only as "Internal error; it was logged." (see trpc.ts): this is
 * where it is logged, with its cause, so that message is true.
 */
export function createTrpcHandler(options: {
  router: AnyTRPCRouter;
  createContext: (request: { headers: Headers }) => Promise<ApiContext>;
  logger: ApiLogger;
}): (request: Request) => Promise<Response> {
  return (req) =>
    fetchRequestHandler({
      endpoint: "/api/trpc",
      router: options.router,
      req,
      createContext: ({ req: incoming }) => options.createContext({ headers: incoming.headers }),
      onError({ error, path, type }) {
        if (!isInternal(error)) return;
        options.logger.error(
          { err: error.cause ?? error, path, type },
          "a procedure failed with an internal error",
        );
      },
    });
}
