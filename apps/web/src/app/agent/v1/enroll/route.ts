import { berthApi } from "../../../../server/berthApi.ts";

// A machine's agent redeems a one-time enrollment code for its credential (issue 39). No
// cookie, token or Origin: the code is the credential; the handler lives in @berth/api.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export function POST(request: Request): Promise<Response> {
  return berthApi().handleAgentEnroll(request);
}
