import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { berthApi } from "../../../../server/berthApi.ts";

function handler(req: Request): Promise<Response> {
  const api = berthApi();
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    router: api.router,
    req,
    createContext: () => api.createContext({ headers: req.headers }),
  });
}

export { handler as GET, handler as POST };
