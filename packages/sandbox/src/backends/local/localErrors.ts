import { BoxError } from "@berth/box-protocol";
import { asBackendError, type BackendError, type BackendErrorCode } from "../../spawner/backend.ts";
import { CgroupError } from "./cgroups/cgroupPort.ts";

/**
 * The one place a local-backend failure becomes a BackendError: every public method passes
 * whatever it caught through here, so callers only ever see the port's closed set of codes.
 */
export function toBackendError(
  error: unknown,
  context: { readonly operation: string; readonly instanceId?: string },
): BackendError {
  return asBackendError(error, context, codeOf);
}

function codeOf(error: unknown): BackendErrorCode {
  // boxd did not answer as it should (down, hung, or a stranger on its port).
  if (error instanceof BoxError) return "unavailable";
  if (error instanceof CgroupError) {
    switch (error.code) {
      case "unavailable":
        return "unavailable";
      // Processes that outlived SIGKILL for seconds: nothing a retry is sure to change.
      case "busy":
        return "internal";
    }
  }
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case "ENOSPC":
    case "EDQUOT":
    case "EMFILE":
    case "ENFILE":
    case "EAGAIN":
      return "capacity";
    // boxdEntry has no tsx to run it with: a configuration mistake.
    case "MODULE_NOT_FOUND":
      return "invalid";
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return "unavailable";
    case undefined:
    default:
      return "internal";
  }
}
