/**
 * The Status bodies of injected failures, after the K1 constructors a real server uses for each
 * code: NewConflict, the generic 422, NewTooManyRequests, NewInternalError, NewServiceUnavailable.
 */
import type { StatusDetails } from "../errors.ts";
import { KubeStatusError, STALE_OBJECT, conflict, genericInvalid } from "../errors.ts";
import type { RequestInfo } from "./requestInfo.ts";

export type FaultCode = 409 | 422 | 429 | 500 | 503;

/** The text API Priority and Fairness rejects with. */
export const TOO_MANY_REQUESTS = "Too many requests, please try again later.";
/** K1's generic text for a 503. */
export const SERVICE_UNAVAILABLE = "the server is currently unable to handle the request";
export const INJECTED = "injected fault";

export function faultError(
  info: RequestInfo,
  effect: { code: FaultCode; retryAfterSeconds?: number; message?: string },
): KubeStatusError {
  switch (effect.code) {
    case 409:
      if (info.type !== undefined) return conflict(info.type, info.name ?? "", effect.message);
      return new KubeStatusError(
        "Conflict",
        `Operation cannot be fulfilled on ${info.path}: ${effect.message ?? STALE_OBJECT}`,
        {},
      );
    case 422:
      return effect.message === undefined
        ? genericInvalid()
        : new KubeStatusError("Invalid", effect.message, {});
    case 429: {
      const details: StatusDetails = { retryAfterSeconds: effect.retryAfterSeconds ?? 1 };
      return new KubeStatusError("TooManyRequests", effect.message ?? TOO_MANY_REQUESTS, details);
    }
    case 500: {
      const cause = effect.message ?? INJECTED;
      return new KubeStatusError("InternalError", `Internal error occurred: ${cause}`, {
        causes: [{ message: cause }],
      });
    }
    case 503:
      // NewServiceUnavailable sets no details.
      return new KubeStatusError("ServiceUnavailable", effect.message ?? SERVICE_UNAVAILABLE);
  }
}
