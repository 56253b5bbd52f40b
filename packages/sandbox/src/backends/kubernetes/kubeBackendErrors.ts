/**
 * The one place a Kubernetes-backend failure becomes the port's BackendError, so the API's one
 * error table can answer it: `capacity` (a quota, a throttling server) as a retryable typed
 * error, `not_found` only when the box's own object is gone — a missing namespace or CRD is a
 * configuration fault, never a lost box.
 */
import { asBackendError, BackendError, type BackendErrorCode } from "../../spawner/backend.ts";
import { AllocationInputError, AllocationRefusedError } from "./allocationErrors.ts";
import { ForeignTokenSecretError } from "./boxTokenSecret.ts";
import { HolderEpochRefusedError, SandboxReplacedError } from "./holderEpoch.ts";
import { KubeConfigError } from "./kubeConfig.ts";
import { KubeError, type KubeErrorKind } from "./kubeErrors.ts";
import { SandboxNameError } from "./sandboxNames.ts";

/** What each kind of API failure means to the port's callers. */
export function backendCodeOf(kind: KubeErrorKind): BackendErrorCode {
  switch (kind) {
    case "gone":
      return "not_found";
    case "capacity":
    case "throttled":
      return "capacity";
    // A lost race (409, a failed JSON Patch test) is settled by the next call's fresh read;
    // credentials can come back (a rotated token); the rest are the server or the network.
    case "conflict":
    case "patch_not_applied":
    case "credential":
    case "unavailable":
    case "timeout":
    case "aborted":
      return "unavailable";
    // The request or the configuration is wrong: the same call fails the same way.
    case "invalid":
    case "not_served":
      return "invalid";
    case "internal":
      return "internal";
  }
}

/**
 * Any failure of the Kubernetes backend as a BackendError. The message is the failure's own,
 * which never carries a token or a response body (kubeErrors.ts).
 *
 * @param context the port operation and the box it was about, for the message
 */
export function toBackendError(
  error: unknown,
  context: { readonly operation: string; readonly instanceId?: string },
): BackendError {
  return asBackendError(error, context, codeOf);
}

function codeOf(error: unknown): BackendErrorCode {
  if (error instanceof KubeError) return backendCodeOf(error.kind);
  // A newer holder owns the box: this call's lease moved on, and a call through it will not meet
  // this refusal again.
  if (error instanceof HolderEpochRefusedError) return "unavailable";
  // The Sandbox that was read is gone; a same-name one is another box.
  if (error instanceof SandboxReplacedError) return "not_found";
  // Someone else's Secret holds the token's name: not Berth's to overwrite.
  if (error instanceof ForeignTokenSecretError) return "invalid";
  // An epoch that is no epoch: the caller's bug, the same every time.
  if (error instanceof RangeError) return "invalid";
  // Refused allocations change nothing and would be refused again: as the local backend does.
  if (
    error instanceof AllocationRefusedError ||
    error instanceof AllocationInputError ||
    error instanceof SandboxNameError ||
    error instanceof KubeConfigError
  )
    return "invalid";
  // Anything else (a patch the client refused to send, an unexpected throw) is Berth's own bug.
  return "internal";
}

/** `invalid`: what the box or its allocation is makes the call impossible; no retry changes it. */
export function backendInvalid(message: string, instanceId?: string): BackendError {
  return new BackendError({
    code: "invalid",
    message,
    ...(instanceId === undefined ? {} : { instanceId }),
  });
}

/** `not_found`: no box by that id (`why` says more when known). */
export function boxNotFound(instanceId: string, why: string): BackendError {
  return new BackendError({
    code: "not_found",
    message: `no box ${instanceId}${why === "" ? "" : ` (${why})`}`,
    instanceId,
  });
}
