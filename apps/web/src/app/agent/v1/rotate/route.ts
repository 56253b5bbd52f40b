import { berthApi } from "../../../../server/berthApi.ts";

// An agent exchanges its machine credential for a new one (asked by an admin's rotation).
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export function POST(request: Request): Promise<Response> {
  return berthApi().handleAgentRotate(request);
}
