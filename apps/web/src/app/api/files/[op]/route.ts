import { berthApi } from "../../../../server/berthApi.ts";

// Streaming file upload (PUT /api/files/upload) and download (GET /api/files/download):
// the handler lives in @berth/api; bytes stream through, never held whole.
function handler(req: Request): Promise<Response> {
  return berthApi().handleFiles(req);
}

export { handler as GET, handler as PUT };
