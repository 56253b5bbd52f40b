import { berthApi } from "../../../../server/berthApi.ts";

function handler(request: Request): Promise<Response> {
  return berthApi().handleTrpc(request);
}

export { handler as GET, handler as POST };
