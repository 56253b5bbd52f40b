import { BoxError, type BoxErrorCode } from "@berth/box-protocol";
import { errnoOf } from "../fs/fsErrors.ts";

/**
 * A failure as it crosses from a worker thread (a manifest job, an extraction batch): a BoxError
 * keeps its code, a system error its errno.
 */
export type ThreadError =
  | { readonly kind: "box"; readonly code: BoxErrorCode; readonly message: string }
  | { readonly kind: "other"; readonly message: string; readonly errno?: string };

export function serializeThreadError(error: unknown): ThreadError {
  if (error instanceof BoxError) return { kind: "box", code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  const errno = errnoOf(error);
  return errno === undefined ? { kind: "other", message } : { kind: "other", message, errno };
}

/** The error again, on this side: what the work would have thrown had it run here. */
export function reviveThreadError(error: ThreadError): Error {
  switch (error.kind) {
    case "box":
      return new BoxError(error.code, error.message);
    case "other":
      return Object.assign(
        new Error(error.message),
        error.errno === undefined ? {} : { code: error.errno },
      );
  }
}
