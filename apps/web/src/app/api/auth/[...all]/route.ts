import { berthApi } from "../../../../server/berthApi.ts";

// Sign-in, sign-up and sign-out: better-auth's handler, configured in @berth/api.
function handler(req: Request): Promise<Response> {
  return berthApi().handleAuth(req);
}

export { handler as GET, handler as POST };
