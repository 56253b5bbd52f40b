import { z } from "zod";

/**
 * Every way a box operation can fail, as one closed union. The server puts one of these in
 * each error body; the client turns every failure (HTTP, network, malformed reply) into a
 * BoxError carrying one of them, so callers switch over a known set.
 */
export const BOX_ERROR_CODES = [
  "unauthorized",
  "invalid_request",
  "invalid_name",
  "outside_workspace",
  "permission_denied",
  "not_found",
  "terminal_not_found",
  "already_exists",
  "not_empty",
  "wrong_type",
  "version_conflict",
  "too_large",
  "git_failed",
  "invalid_archive",
  "timeout",
  "unavailable",
  "internal",
] as const;

export type BoxErrorCode = (typeof BOX_ERROR_CODES)[number];

export const boxErrorCodeSchema = z.enum(BOX_ERROR_CODES);

/** The body of every non-2xx JSON response boxd sends. */
export const errorBodySchema = z.object({
  error: z.object({
    code: boxErrorCodeSchema,
    message: z.string(),
  }),
});

export type ErrorBody = z.infer<typeof errorBodySchema>;

/** A failed box operation. `code` is what to branch on; `message` is for people. */
export class BoxError extends Error {
  override readonly name = "BoxError";
  constructor(
    readonly code: BoxErrorCode,
    message: string,
    options?: { readonly status?: number; readonly cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.status = options?.status;
  }
  readonly status: number | undefined;
}

/** The HTTP status boxd answers with for each code. */
export function httpStatusOf(code: BoxErrorCode): number {
  switch (code) {
    case "unauthorized":
      return 401;
    case "invalid_request":
    case "invalid_name":
      return 400;
    case "outside_workspace":
    case "permission_denied":
      return 403;
    case "not_found":
    case "terminal_not_found":
      return 404;
    case "already_exists":
    case "not_empty":
    case "wrong_type":
      return 409;
    case "version_conflict":
      return 412;
    case "too_large":
      return 413;
    case "git_failed":
    case "invalid_archive":
      return 422;
    case "timeout":
      return 504;
    case "unavailable":
      return 503;
    case "internal":
      return 500;
  }
}

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
  if (status === 412) return "version_conflict";
  if (status === 413) return "too_large";
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
