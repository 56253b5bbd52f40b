import { z } from "zod";
import { BOX_ERROR_CODES, BoxError, type BoxErrorCode } from "./boxError.ts";

// The wire side of errors: the code and body schemas, and the one reply-to-BoxError mapping.

export const boxErrorCodeSchema = z.enum(BOX_ERROR_CODES);

/** The body of every non-2xx JSON response boxd sends. */
export const errorBodySchema = z.object({
  error: z.object({
    code: boxErrorCodeSchema,
    message: z.string(),
  }),
});

export type ErrorBody = z.infer<typeof errorBodySchema>;

/**
 * The one mapping from an HTTP reply to a BoxError. A well-formed error body wins; otherwise
 * the status decides (a proxy or a crashed handler may answer without our body).
 */
export function boxErrorFromResponse(status: number, bodyText: string): BoxError {
  const parsed = errorBodySchema.safeParse(parseJsonOrUndefined(bodyText));
  if (parsed.success) {
    return new BoxError(parsed.data.error.code, parsed.data.error.message, { status });
  }
  const excerpt = bodyText.slice(0, 200);
  return new BoxError(codeOfStatus(status), `HTTP ${status}${excerpt ? `: ${excerpt}` : ""}`, {
    status,
  });
}

function codeOfStatus(status: number): BoxErrorCode {
  if (status === 400) return "invalid_request";
  if (status === 401 || status === 403) return "unauthorized";
  if (status === 404) return "not_found";
  if (status === 421) return "wrong_pod";
  if (status === 412) return "version_conflict";
  if (status === 413) return "too_large";
  if (status === 507) return "disk_full";
  if (status === 408 || status === 504) return "timeout";
  if (status === 502 || status === 503) return "unavailable";
  return "internal";
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
