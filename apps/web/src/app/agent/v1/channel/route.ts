import { berthApi } from "../../../../server/berthApi.ts";

// An enrolled machine's agent channel (Server-Sent Events, held open): never cached or
// prerendered, and on Node (the handler streams for as long as the agent stays).
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export function GET(request: Request): Promise<Response> {
  return berthApi().handleAgentChannel(request);
}
