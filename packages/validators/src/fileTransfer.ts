import { z } from "zod";
import { idSchema } from "./ids.ts";

/**
 * File transfers are plain HTTP, not tRPC: a file's bytes stream as the request or response
 * body (no base64, never held whole). Upload options other than the scope travel as boxd's own
 * upload query (`encodeUploadQuery` in @berth/box-protocol).
 */
export const fileTransferRoutes = {
  /** PUT, body = the file's bytes; answers `{ path, version, size }`. */
  upload: "/api/files/upload",
  /** GET; answers the bytes with Content-Length. */
  download: "/api/files/download",
} as const;

/** Which session's box a transfer runs on (query parameters). */
export const fileTransferScopeSchema = z.object({
  workspaceId: idSchema,
  sessionId: idSchema,
});
