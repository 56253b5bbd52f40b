import type { AppRouter } from "@berth/api";
import { TRPCClientError } from "@trpc/client";
import { errorMessage } from "../../../lib/errorMessage.ts";

/** The domain code every API error carries in `data.berth` (see the API's error table). */
export function berthCode(error: unknown): string | undefined {
  return berthData(error)?.code;
}

/** `data.berth` of an API error: its code, and whether the same call may succeed. */
function berthData(error: unknown): { code: string; retryable: boolean } | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  return (error as TRPCClientError<AppRouter>).data?.berth;
}

/** boxd's git answers `git_failed` with git's own words when /workspace has no repository. */
export function isNotARepository(error: unknown): boolean {
  return (
    berthCode(error) === "git_failed" &&
    error instanceof Error &&
    /not a git repository/i.test(error.message)
  );
}

/**
 * The failure's message and, where the code tells us, what to do about it: the raw git or lease
 * wording alone leaves a person guessing whether to retry, reload or call an admin.
 */
export function gitFailure(error: unknown): string {
  const message = errorMessage(error);
  const next = nextStep(berthData(error));
  return next === undefined ? message : `${message} ${next}`;
}

function nextStep(berth: { code: string; retryable: boolean } | undefined): string | undefined {
  if (berth === undefined) return undefined;
  const { code, retryable } = berth;
  switch (code) {
    case "blocked":
      return "The box's workspace cannot be restored: ask an admin to recover the session (restore a revision or start fresh).";
    case "fenced":
    case "instance_lost":
      return "The box changed under the call; refresh and try again.";
    case "version_conflict":
    case "already_exists":
      return "Someone changed the repository meanwhile; refresh and try again.";
    case "git_failed":
      return "Check the repository's state below, fix it (in the terminal if need be) and try again.";
    case "box_unavailable":
    case "spawn_failed":
    case "wait_timeout":
    case "timeout":
    case "unavailable":
      // The server's `retryable` is what the next call will do: never "try again" without it.
      return retryable
        ? "The box did not answer in time; try again in a moment."
        : "This server cannot bring the box up as it is set up; tell its operator.";
    default:
      return undefined;
  }
}
