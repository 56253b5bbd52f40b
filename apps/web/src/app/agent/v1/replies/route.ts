import { berthApi } from "../../../../server/berthApi.ts";

// An agent's reply to a request of its channel (the machine's credential is checked each time).
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export function POST(request: Request): Promise<Response> {
  return berthApi().handleAgentReplies(request);
}
