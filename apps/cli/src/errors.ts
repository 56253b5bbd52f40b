import { BerthRequestError } from "@berth/client";
import { TRPCClientError } from "@trpc/client";
import { z } from "zod";
import { exitCodes, type ExitReason } from "./exitCodes.ts";

/** A failure as the CLI reports it: why (the exit code), what happened, and what to do next. */
export class CliError extends Error {
  override readonly name = "CliError";
  readonly reason: ExitReason;
  /** The server's `data.berth.code`, or the CLI's own name for the failure. */
  readonly code: string;
  readonly hint: string;

  constructor(options: {
    reason: ExitReason;
    code: string;
    message: string;
    hint: string;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.reason = options.reason;
    this.code = options.code;
    this.hint = options.hint;
  }

  get exitCode(): number {
    return exitCodes[this.reason];
  }
}

/** A usage error found before anything was sent. */
export function usageError(message: string, hint: string): CliError {
  return new CliError({ reason: "usage", code: "usage", message, hint });
}

/** What the failing command was about, so the advice can name it. */
export interface ErrorScope {
  readonly url: string | undefined;
  readonly sessionId: string | undefined;
}

/** The `data` of an API answer: the same shape from tRPC calls and from file transfers. */
interface ApiErrorData {
  readonly code: string;
  readonly berth: { readonly code: string; readonly retryable: boolean } | null;
}

/** Errors that mean the request never reached a server (or its connection broke). */
const networkCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Whether the error (or one of its causes) is a connection failure rather than an answer. */
export function isNetworkError(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 6; depth++) {
    if ("code" in cause && typeof cause.code === "string" && networkCodes.has(cause.code))
      return true;
    if (cause instanceof TypeError && cause.message === "fetch failed") return true;
    if (cause instanceof BerthRequestError && cause.data.berth?.code === "unreachable") return true;
    cause = cause.cause;
  }
  return false;
}

/** The part of a tRPC error's `data` the CLI reads (`data.berth` is set by every Berth API). */
const apiErrorDataSchema = z.object({
  code: z.string(),
  berth: z.object({ code: z.string(), retryable: z.boolean() }).nullish(),
});

function apiDataOf(error: unknown): ApiErrorData | undefined {
  if (error instanceof BerthRequestError) return error.data;
  if (!(error instanceof TRPCClientError)) return undefined;
  const parsed = apiErrorDataSchema.safeParse(error.data);
  return parsed.success ? { code: parsed.data.code, berth: parsed.data.berth ?? null } : undefined;
}

/** The exit reason of an API answer: the one table from server codes to exit codes. */
function reasonOf(data: ApiErrorData): ExitReason {
  const berthCode = data.berth?.code;
  // The spawner's restore_blocked is the same state as the router's blocked, met while waking.
  if (berthCode === "blocked" || berthCode === "restore_blocked") return "blocked";
  switch (data.code) {
    case "UNAUTHORIZED":
      return "signedOut";
    case "FORBIDDEN":
      return "forbidden";
    case "NOT_FOUND":
      return "notFound";
    case "BAD_REQUEST":
    case "PAYLOAD_TOO_LARGE":
    case "UNPROCESSABLE_CONTENT":
    case "METHOD_NOT_SUPPORTED":
      return "usage";
    case "SERVICE_UNAVAILABLE":
    case "TIMEOUT":
    case "TOO_MANY_REQUESTS":
      return "retry";
    // Refused as asked (the file exists, the folder is not empty, the box is live): running
    // the same command again will not help, changing it will.
    case "CONFLICT":
    case "PRECONDITION_FAILED":
      return data.berth?.retryable === true ? "retry" : "usage";
    default:
      return data.berth?.retryable === true ? "retry" : "unexpected";
  }
}

function sessionFlag(scope: ErrorScope): string {
  return `-s ${scope.sessionId ?? "<session>"}`;
}

/** What to do next, for each reason (and the server's code where it says more). */
function adviceFor(reason: ExitReason, berthCode: string | undefined, scope: ErrorScope): string {
  switch (reason) {
    case "ok":
    case "unexpected":
      return "If it keeps happening, report it with the command you ran.";
    case "usage":
      switch (berthCode) {
        case "too_large":
          return "Stream large files with `berth get <remote> [local]` and `berth put <local> <remote>`.";
        case "version_conflict":
          return "The file exists (or changed meanwhile): read it again, or write without --no-overwrite.";
        case "not_empty":
          return "The folder has contents: `berth rm -r` removes it with them.";
        case "already_exists":
          return "Something is there already: choose another path, or remove it first.";
        case "precondition_failed":
          return "Do what the message says, then run the command again.";
        case "git_failed":
          return `Git refused it (its message is above); a workspace that is no repository yet needs \`berth exec ${sessionFlag(scope)} -- git init\`.`;
        case undefined:
        default:
          return "Check the arguments: `berth <command> --help`.";
      }
    case "signedOut":
      return "Run `berth login` (the token may have expired or been revoked), or set BERTH_TOKEN.";
    case "forbidden":
      return "Ask a workspace admin for a role that allows it, then `berth login` again.";
    case "notFound":
      switch (berthCode) {
        case "session_not_found":
          return "List this workspace's sessions with `berth sessions`.";
        case "terminal_not_found":
          return "Open a new terminal with `berth terminal` (reattach needs an open terminal's id).";
        case "not_found":
          return `List what is there with \`berth ls ${sessionFlag(scope)}\`.`;
        case undefined:
        default:
          return "Check the id or path; `berth sessions` and `berth ls` list what exists.";
      }
    case "blocked":
      return [
        "An admin must restore a revision:",
        `\`berth archives list ${sessionFlag(scope)}\`, then \`berth archives restore <revision> ${sessionFlag(scope)}\``,
        `(or start from an empty workspace: \`berth archives restore --fresh ${sessionFlag(scope)}\`).`,
      ].join(" ");
    case "retry":
      switch (berthCode) {
        case "instance_lost":
          return "The box was lost; run the same command again to bring the workspace back from its archive.";
        case "fenced":
          return "A newer box took over mid-call; run the same command again.";
        case "box_unavailable":
          return "The box did not answer (the call may have run); check, then run it again.";
        case undefined:
        default:
          return "Run the same command again in a moment.";
      }
    case "unreachable":
      return `Check the address (${scope.url ?? "--url / BERTH_URL"}) and that Berth is running, then retry.`;
  }
}

/** Maps anything a command threw to the one error the CLI reports, once, for every command. */
export function toCliError(error: unknown, scope: ErrorScope): CliError {
  if (error instanceof CliError) return error;
  if (isNetworkError(error))
    return new CliError({
      reason: "unreachable",
      code: "unreachable",
      message: `Berth at ${scope.url ?? "the configured URL"} could not be reached.`,
      hint: adviceFor("unreachable", undefined, scope),
      cause: error,
    });
  const data = apiDataOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (data === undefined) {
    if (error instanceof TRPCClientError)
      return new CliError({
        reason: "unexpected",
        code: "bad_answer",
        message: `The server's answer was not Berth's API (${message}).`,
        hint: `Check that ${scope.url ?? "--url / BERTH_URL"} is Berth's address.`,
        cause: error,
      });
    return new CliError({
      reason: "unexpected",
      code: "internal",
      message,
      hint: adviceFor("unexpected", undefined, scope),
      cause: error,
    });
  }
  const reason = reasonOf(data);
  const berthCode = data.berth?.code;
  return new CliError({
    reason,
    code: berthCode ?? data.code.toLowerCase(),
    message,
    hint: adviceFor(reason, berthCode, scope),
    cause: error,
  });
}
