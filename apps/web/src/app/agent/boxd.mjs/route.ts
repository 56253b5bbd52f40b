import { berthApi } from "../../../server/berthApi.ts";

// The single-file agent (`node boxd.mjs agent …`), streamed from boxd's build.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export function GET(request: Request): Promise<Response> {
  return berthApi().handleAgentBundle(request);
}
