import { BerthRequestError } from "@berth/client";
import { TRPCClientError } from "@trpc/client";
import { z } from "zod";
import { adviceFor, localAdvice, type ErrorScope } from "./errorAdvice.ts";
import { exitCodes, type ExitReason } from "./exitCodes.ts";

export type { ErrorScope } from "./errorAdvice.ts";

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

/** Maps anything a command threw to the one error the CLI reports, once, for every command. */
export function toCliError(error: unknown, scope: ErrorScope): CliError {
  if (error instanceof CliError) return error;
  if (isNetworkError(error))
    return new CliError({
      reason: "unreachable",
      code: "unreachable",
      message: `Berth at ${scope.url ?? "the configured URL"} could not be reached.`,
      hint: localAdvice("unreachable", scope),
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
      hint: localAdvice("unexpected", scope),
      cause: error,
    });
  }
  const berthCode = data.berth?.code;
  const { reason, hint } = adviceFor(
    { trpcCode: data.code, berthCode, retryable: data.berth?.retryable === true },
    scope,
  );
  return new CliError({
    reason,
    code: berthCode ?? data.code.toLowerCase(),
    message,
    hint,
    cause: error,
  });
}
