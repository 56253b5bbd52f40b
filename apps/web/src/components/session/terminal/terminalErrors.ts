import type { AppRouter } from "@berth/api";
import { TRPCClientError } from "@trpc/client";
import { errorMessage } from "../../../lib/errorMessage.ts";

/** The Berth code an API error carries in `data.berth` (see the API's error table). */
export function berthCodeOf(error: unknown): string | undefined {
  return berthOf(error)?.code;
}

function berthOf(error: unknown): { code: string; retryable: boolean } | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  return (error as TRPCClientError<AppRouter>).data?.berth;
}

/** The box no longer has this terminal: it ended, or the box it ran in was replaced. */
export function isTerminalGone(error: unknown): boolean {
  return berthCodeOf(error) === "terminal_not_found";
}

/** What a person can do about a failed terminal call, after the API's own message. */
function nextStep(berth: { code: string; retryable: boolean } | undefined): string | undefined {
  switch (berth?.code) {
    case "blocked":
      return "A workspace admin must bring it back: `berth archives list`, then `berth archives restore <revision>` (or `berth archives restore --fresh` for an empty workspace). Then open a new terminal.";
    case "fenced":
    case "instance_lost":
      return "The box was replaced meanwhile: open a new terminal.";
    case "box_unavailable":
    case "spawn_failed":
    case "wait_timeout":
      // The server's `retryable` is what the next call will do: never "try again" without it.
      return berth.retryable
        ? "Try again in a moment."
        : "This server cannot bring the box up as it is set up; tell its operator.";
    case undefined:
    default:
      return undefined;
  }
}

/** The message for an alert: the API's sentence, then what to do next when that is known. */
export function terminalErrorText(error: unknown): string {
  const step = nextStep(berthOf(error));
  return step === undefined ? errorMessage(error) : `${errorMessage(error)} ${step}`;
}
