import { berthApi } from "../../../../server/berthApi.ts";

// Another web replica's call for a machine whose agent channel this one holds (issue 40); only
// replicas hold the key it checks.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export function POST(request: Request): Promise<Response> {
  return berthApi().handleRelay(request);
}
