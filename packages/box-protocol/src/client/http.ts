import type { Dispatcher } from "undici";
import type { z } from "zod";
import { BoxError } from "../boxError.ts";
import { boxErrorFromResponse } from "../errors.ts";
import {
  AUTH_HEADER,
  boxOperations,
  POD_UID_HEADER,
  type BoxOperationName,
  type OperationInput,
  type OperationResponse,
} from "../operations.ts";

export interface ClientContext {
  /** For a socket, a stand-in origin (`http://boxd`): only its path and query are sent. */
  readonly baseUrl: URL;
  /** boxd's Unix socket, when it listens on one (a local box); else baseUrl's host is dialled. */
  readonly socketPath: string | undefined;
  /** fetch's connection pool for the socket (undici's, which Node's fetch is built on). */
  readonly dispatcher: Dispatcher | undefined;
  readonly token: string;
  /** The pod uid the caller expects boxd to run in (POD_UID_HEADER); undefined: not sent. */
  readonly podUid: string | undefined;
  /** Per-request limit; unset means no limit beyond the server's own (exec has its timeout). */
  readonly timeoutMs: number | undefined;
}

export interface SendOptions {
  readonly method: "GET" | "POST" | "PUT";
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: RequestInit["body"];
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Endpoints that answer without the token (health, readiness; bind, whose proof goes in
   * `headers`).
   */
  readonly anonymous?: boolean;
  /** The caller's own abort, on top of the client's timeout. */
  readonly signal?: AbortSignal | undefined;
}

/** An absolute URL for `path` under the base URL (which may itself carry a path prefix). */
export function endpointUrl(
  baseUrl: URL,
  path: string,
  query: Readonly<Record<string, string | undefined>> = {},
): URL {
  const url = new URL(baseUrl.href.replace(/\/+$/, "") + path);
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(key, value);
  }
  return url;
}

/**
 * The headers naming the caller and the box it means, for every transport (fetch, node:http,
 * WebSocket): the token unless the endpoint is anonymous, and the expected pod uid when known.
 * The uid goes on anonymous requests too: it is no secret, and boxd ignores it there.
 */
export function callerHeaders(
  context: ClientContext,
  options: { readonly anonymous?: boolean | undefined } = {},
): Record<string, string> {
  return {
    ...(options.anonymous === true ? {} : { [AUTH_HEADER]: `Bearer ${context.token}` }),
    ...(context.podUid === undefined ? {} : { [POD_UID_HEADER]: context.podUid }),
  };
}

/**
 * One HTTP exchange. Every failure leaves as a BoxError: the server's own error body, a
 * status-derived code, `timeout` for the client's limit, `unavailable` when nothing answered.
 */
export async function send(context: ClientContext, options: SendOptions): Promise<Response> {
  const headers: Record<string, string> = {
    ...options.headers,
    ...callerHeaders(context, { anonymous: options.anonymous }),
  };
  const streaming = typeof options.body === "object" && options.body !== null;
  let response: Response;
  try {
    response = await fetch(endpointUrl(context.baseUrl, options.path, options.query), {
      ...dispatchedBy(context),
      method: options.method,
      headers,
      body: options.body ?? null,
      // Node's fetch needs half-duplex to send a streamed body.
      ...(streaming ? { duplex: "half" as const } : {}),
      signal: requestSignal(context.timeoutMs, options.signal),
    });
  } catch (error) {
    throw transportError(error);
  }
  if (!response.ok) throw boxErrorFromResponse(response.status, await response.text());
  return response;
}

/** The client's timeout and the caller's signal as one, or null when there is neither. */
function requestSignal(
  timeoutMs: number | undefined,
  signal: AbortSignal | undefined,
): AbortSignal | null {
  const signals = [
    ...(timeoutMs === undefined ? [] : [AbortSignal.timeout(timeoutMs)]),
    ...(signal === undefined ? [] : [signal]),
  ];
  return signals.length === 0 ? null : AbortSignal.any(signals);
}

/**
 * fetch's `dispatcher` option: Node's fetch dials through an undici dispatcher (the socket's
 * pool). Typed apart: the DOM's RequestInit, which a browser-facing build sees, has no such field.
 */
export function dispatchedBy(context: ClientContext): RequestInit {
  if (context.dispatcher === undefined) return {};
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- npm undici's Agent, for the undici inside Node: one interface, two copies of the class
  const init: RequestInit & { readonly dispatcher: unknown } = { dispatcher: context.dispatcher };
  return init;
}

/** A JSON operation: the request checked against the shared schema, the reply parsed by it. */
export async function callOperation<K extends BoxOperationName>(
  context: ClientContext,
  name: K,
  input: OperationInput<K>,
): Promise<OperationResponse<K>> {
  const operation = boxOperations[name];
  const request = (operation.request as z.ZodType).safeParse(input);
  if (!request.success) {
    // Worded as boxd words its own refusal: the field, then why.
    const issue = request.error.issues[0];
    const where = issue?.path.join(".") ?? "";
    throw new BoxError(
      "invalid_request",
      `${name}: ${where ? `${where}: ` : ""}${issue?.message ?? ""}`,
    );
  }
  const response = await send(context, {
    method: "POST",
    path: operation.path,
    body: JSON.stringify(request.data),
    headers: { "content-type": "application/json" },
  });
  return parseReply(operation.response, await readText(response), name) as OperationResponse<K>;
}

/** A reply body parsed by its schema; anything else is the server's fault, so `internal`. */
export function parseReply<T extends z.ZodType>(
  schema: T,
  text: string,
  what: string,
): z.output<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BoxError("internal", `${what}: the reply is not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new BoxError(
      "internal",
      `${what}: malformed reply (${parsed.error.issues[0]?.message ?? ""})`,
    );
  }
  return parsed.data;
}

export async function readText(response: Response): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    throw transportError(error);
  }
}

/** Maps what fetch throws (abort, refused, reset) to a BoxError. */
export function transportError(error: unknown): BoxError {
  if (error instanceof BoxError) return error;
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError") {
    return new BoxError("timeout", "the request took longer than the client allows", {
      cause: error,
    });
  }
  const reason = error instanceof Error ? (describeCause(error) ?? error.message) : String(error);
  return new BoxError("unavailable", `boxd did not answer: ${reason}`, { cause: error });
}

function describeCause(error: Error): string | undefined {
  const cause: unknown = error.cause;
  return cause instanceof Error ? cause.message : undefined;
}
