import { BoxError, type BoxErrorCode } from "@berth/box-protocol";
import {
  BackendError,
  backendErrorAnswers,
  BackendNotConfiguredError,
  BoxServiceError,
  LeaseError,
  RestoreRefusedError,
  SpawnError,
  type BoxServiceErrorCode,
  type RestoreRefusalCode,
} from "@berth/sandbox";
import type { BackendErrorCode } from "@berth/sandbox";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { TransferError } from "../files/uploadBody.ts";
import type { BerthErrorCode } from "./berthErrorCodes.ts";

/** What every error carries to clients in `data.berth`. */
export interface BerthErrorData {
  readonly code: BerthErrorCode;
  readonly retryable: boolean;
  readonly epoch?: number;
}

/** A domain error as the API answers it. */
export interface MappedError {
  readonly trpc: TRPC_ERROR_CODE_KEY;
  readonly message: string;
  readonly berth: BerthErrorData;
}

const boxServiceCodes: Record<BoxServiceErrorCode, TRPC_ERROR_CODE_KEY> = {
  blocked: "CONFLICT",
  fenced: "CONFLICT",
  instance_lost: "CONFLICT",
  box_unavailable: "SERVICE_UNAVAILABLE",
  spawn_failed: "SERVICE_UNAVAILABLE",
  wait_timeout: "TIMEOUT",
  route_unavailable: "PRECONDITION_FAILED",
  capture_refused: "CONFLICT",
  capture_unavailable: "SERVICE_UNAVAILABLE",
};

const restoreRefusalCodes: Record<RestoreRefusalCode, TRPC_ERROR_CODE_KEY> = {
  spawn_in_progress: "CONFLICT",
  capture_unavailable: "SERVICE_UNAVAILABLE",
  writes_in_flight: "CONFLICT",
  stop_failed: "SERVICE_UNAVAILABLE",
  restore_in_progress: "CONFLICT",
  drain_in_progress: "CONFLICT",
  stale_epoch: "CONFLICT",
  fence_lost: "CONFLICT",
  revision_not_found: "NOT_FOUND",
  lease_not_found: "NOT_FOUND",
};

const boxCodes: Record<BoxErrorCode, TRPC_ERROR_CODE_KEY> = {
  unauthorized: "INTERNAL_SERVER_ERROR",
  // Berth reached the address of a box whose pod is gone: the box is unreachable there.
  wrong_pod: "SERVICE_UNAVAILABLE",
  invalid_request: "BAD_REQUEST",
  invalid_name: "BAD_REQUEST",
  outside_workspace: "FORBIDDEN",
  permission_denied: "FORBIDDEN",
  not_found: "NOT_FOUND",
  terminal_not_found: "NOT_FOUND",
  already_exists: "CONFLICT",
  not_empty: "CONFLICT",
  wrong_type: "BAD_REQUEST",
  version_conflict: "CONFLICT",
  too_large: "PAYLOAD_TOO_LARGE",
  // tRPC has no 507: the call is sound, the workspace must first have room for it.
  disk_full: "PRECONDITION_FAILED",
  git_failed: "UNPROCESSABLE_CONTENT",
  invalid_archive: "BAD_REQUEST",
  timeout: "TIMEOUT",
  unavailable: "SERVICE_UNAVAILABLE",
  // The machine's agent must be running first: not a retry's matter, an owner's.
  machine_offline: "PRECONDITION_FAILED",
  // Relays retry it themselves; one that still reaches a client met a machine moving replicas.
  stale_route: "SERVICE_UNAVAILABLE",
  // The machine must first have what the message names installed: no retry will do.
  unsupported: "PRECONDITION_FAILED",
  internal: "INTERNAL_SERVER_ERROR",
};

// A backend's own refusal: never a 500 for what a later call (capacity, unavailable) or an
// operator (invalid, internal) can change; retryable as backendErrorAnswers says.
const backendCodes: Record<BackendErrorCode, TRPC_ERROR_CODE_KEY> = {
  not_found: "NOT_FOUND",
  capacity: "TOO_MANY_REQUESTS",
  unavailable: "SERVICE_UNAVAILABLE",
  invalid: "PRECONDITION_FAILED",
  internal: "SERVICE_UNAVAILABLE",
  // Berth runs outside the cluster's pod network: nothing the caller can change, nor a retry.
  unreachable_pod_network: "PRECONDITION_FAILED",
};

/**
 * The one table from Berth's typed errors to tRPC codes. Anything else is an internal error
 * whose message (and stack) never reaches a client.
 */
export function mapDomainError(error: unknown): MappedError | undefined {
  if (error instanceof BoxServiceError)
    return {
      trpc: boxServiceCodes[error.code],
      message: error.message,
      berth: {
        code: error.code,
        retryable: error.retryable,
        ...(error.epoch === undefined ? {} : { epoch: error.epoch }),
      },
    };
  if (error instanceof BoxError)
    return {
      trpc: boxCodes[error.code],
      // boxd's own token problem is Berth's fault, not the caller's: say nothing of it.
      message:
        error.code === "unauthorized" ? "The box refused Berth's credentials." : error.message,
      berth: {
        code: error.code === "unauthorized" ? "box_credentials_refused" : error.code,
        retryable:
          error.code === "timeout" || error.code === "unavailable" || error.code === "stale_route",
      },
    };
  if (error instanceof LeaseError)
    return {
      trpc:
        error.code === "invalid_input"
          ? "BAD_REQUEST"
          : error.code === "session_not_found"
            ? "NOT_FOUND"
            : "CONFLICT",
      message: error.message,
      berth: {
        code: error.code,
        retryable: false,
        ...(error.lease === null ? {} : { epoch: error.lease.epoch }),
      },
    };
  if (error instanceof TransferError)
    return {
      trpc: error.code === "too_large" ? "PAYLOAD_TOO_LARGE" : "CLIENT_CLOSED_REQUEST",
      message: error.message,
      berth: { code: error.code, retryable: error.code === "client_gone" },
    };
  if (error instanceof RestoreRefusedError)
    return {
      trpc: restoreRefusalCodes[error.code],
      message: error.message,
      berth: {
        code: error.code,
        retryable: error.retryable,
        ...(error.epoch === undefined ? {} : { epoch: error.epoch }),
      },
    };
  if (error instanceof BackendNotConfiguredError)
    return {
      trpc: "PRECONDITION_FAILED",
      message: error.message,
      berth: { code: error.code, retryable: false },
    };
  if (error instanceof BackendError)
    return {
      trpc: backendCodes[error.code],
      message:
        error.code === "internal"
          ? "The box backend failed; tell the operator if it keeps happening."
          : `The box backend refused: ${error.message}`,
      berth: {
        code: backendErrorAnswers[error.code].code,
        retryable: backendErrorAnswers[error.code].retryable,
      },
    };
  if (error instanceof SpawnError)
    return {
      trpc: "SERVICE_UNAVAILABLE",
      message: error.message,
      // From the lease the failure left: a restore out of retries is as final as a block.
      berth: { code: error.code, retryable: error.retryable },
    };
  return undefined;
}
