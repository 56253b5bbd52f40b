// BoxError and its codes, without the wire schemas (errors.ts): what a boxd worker thread
// needs to fail with a code, so its bundle carries no schema library.

/**
 * Every way a box operation can fail, as one closed union. The server puts one of these in
 * each error body; the client turns every failure (HTTP, network, malformed reply) into a
 * BoxError carrying one of them, so callers switch over a known set.
 */
export const BOX_ERROR_CODES = [
  "unauthorized",
  /**
   * The box at this address is another pod than the one the caller expects (its pod uid
   * differs): the box's own pod is gone and its IP now serves someone else. Never retryable
   * against this address; find the box's pod again.
   */
  "wrong_pod",
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
  /** The workspace is at its disk limit (or the disk is full): free space, then write again. */
  "disk_full",
  "git_failed",
  "invalid_archive",
  "timeout",
  "unavailable",
  /**
   * An enrolled machine whose agent is not connected (or stopped answering): the call was sent
   * nowhere. It works again once the machine's agent reconnects.
   */
  "machine_offline",
  /**
   * A call relayed between replicas named a connection of the machine that is no longer the one
   * the receiving replica holds (the agent reconnected): nothing ran; read the route again.
   */
  "stale_route",
  /**
   * This machine lacks what the operation needs (an agent's machine without util-linux's
   * `script` for terminals): the message says what to install. Not retryable as it is.
   */
  "unsupported",
  "internal",
] as const;

export type BoxErrorCode = (typeof BOX_ERROR_CODES)[number];

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
    case "wrong_pod":
      // Misdirected Request (RFC 9110): this server is not the one the request is meant for.
      return 421;
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
    case "disk_full":
      // Insufficient Storage (RFC 4918): the request is fine, the workspace has no room for it.
      return 507;
    case "git_failed":
    case "invalid_archive":
      return 422;
    case "timeout":
      return 504;
    case "unavailable":
    case "machine_offline":
      return 503;
    case "stale_route":
      return 409;
    case "unsupported":
      // Not Implemented (RFC 9110): this server lacks what the request needs.
      return 501;
    case "internal":
      return 500;
  }
}
