/**
 * Every failure of a Kubernetes API request becomes one KubeError of a closed set of kinds, in
 * one function (normalizeKubeError), so no caller ever tests a status code, a client-node class
 * or an errno itself. Messages name the verb, the object and the status, and never carry a
 * token or a response body: a Status message can echo the values of the object sent (an Invalid
 * answer quotes them), so only its reason and the names of the fields it blames are kept.
 */
import { ApiException } from "@kubernetes/client-node";
import type { AbortCause } from "./operation.ts";
import { parseRetryAfter } from "./retryAfter.ts";

export const kubeErrorKinds = [
  /** 401, 403 other than a quota, or a server whose TLS certificate Berth does not trust. */
  "credential",
  /** 404 naming the object asked for, or 410: it is not there (any more). */
  "gone",
  /** 404 for the path itself: the cluster does not serve this kind, or the namespace is missing. */
  "not_served",
  /** 409: AlreadyExists on a create, Conflict on a precondition or a resourceVersion. */
  "conflict",
  /** 422 on a JSON Patch: a failed `test` and a malformed patch look alike; re-read to tell. */
  "patch_not_applied",
  /** 400, 405, 413, 415, or a 422 other than a JSON Patch's: the request itself is wrong. */
  "invalid",
  /** 403 exceeded quota: the namespace has no room for it. */
  "capacity",
  /** 429, or 503 with Retry-After: the server asks Berth to come back later. */
  "throttled",
  /** Any other 5xx, a refused or reset connection: the server could not be reached or answer. */
  "unavailable",
  /** No answer within the per-request timeout or the operation's deadline. */
  "timeout",
  /** The caller's signal aborted the request. */
  "aborted",
  /** Anything else: an answer Berth cannot read, or a bug. */
  "internal",
] as const;
export type KubeErrorKind = (typeof kubeErrorKinds)[number];

/** What a request was, for messages: `get sandboxes berth-… in default`. */
export interface KubeRequest {
  readonly verb: "get" | "list" | "create" | "patch" | "delete";
  /** The plural, e.g. `sandboxes`. */
  readonly resource: string;
  readonly namespace: string;
  /** The object's name; undefined for create and list. */
  readonly name?: string | undefined;
  /** For a patch: which kind of patch was sent (a 422 means different things for each). */
  readonly patchType?: "merge" | "json" | undefined;
}

export class KubeError extends Error {
  override readonly name = "KubeError";
  readonly kind: KubeErrorKind;
  readonly request: KubeRequest;
  /** The HTTP status, when the server answered. */
  readonly status: number | undefined;
  /** The Status `reason` (AlreadyExists, Conflict, Invalid, …), when the answer had one. */
  readonly reason: string | undefined;
  /** What the server asked Berth to wait (429/503 Retry-After), in ms. */
  readonly retryAfterMs: number | undefined;
  /** For a timeout: which bound ran out, and its length. */
  readonly timeout: { readonly bound: "request" | "operation"; readonly ms: number } | undefined;

  constructor(options: {
    kind: KubeErrorKind;
    request: KubeRequest;
    message: string;
    status?: number;
    reason?: string;
    retryAfterMs?: number;
    timeout?: { bound: "request" | "operation"; ms: number };
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.kind = options.kind;
    this.request = options.request;
    this.status = options.status;
    this.reason = options.reason;
    this.retryAfterMs = options.retryAfterMs;
    this.timeout = options.timeout;
  }
}

/** What the wrapper knew when a request failed: the request, and what aborted it (if anything). */
export interface FailureContext {
  readonly request: KubeRequest;
  readonly abort?: AbortCause | undefined;
}

/**
 * The one function that turns whatever a request threw into a KubeError. An answer the server
 * gave wins over an abort that raced it; then the caller's abort over a timeout; then transport
 * failures; anything else is internal.
 */
export function normalizeKubeError(error: unknown, context: FailureContext): KubeError {
  if (error instanceof KubeError) return error;
  const { request } = context;
  if (error instanceof ApiException) return fromAnswer(error, request);
  const abort = context.abort;
  if (abort !== undefined) {
    switch (abort.by) {
      case "caller":
        return new KubeError({
          kind: "aborted",
          request,
          message: `${describe(request)}: aborted by the caller`,
          cause: abort.reason,
        });
      case "request-timeout":
        return new KubeError({
          kind: "timeout",
          request,
          message: `${describe(request)}: no answer within the ${String(abort.ms)} ms per-request timeout (requestTimeoutMs)`,
          timeout: { bound: "request", ms: abort.ms },
        });
      case "deadline":
        return new KubeError({
          kind: "timeout",
          request,
          message: `${describe(request)}: ${abort.label} ran out of its ${String(abort.ms)} ms deadline`,
          timeout: { bound: "operation", ms: abort.ms },
        });
    }
  }
  const code = transportCode(error);
  if (code !== undefined) {
    const tls = /^(?:ERR_TLS|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_SSL)/.test(code);
    return new KubeError({
      kind: tls ? "credential" : "unavailable",
      request,
      message: tls
        ? `${describe(request)}: the API server's TLS certificate is not trusted (${code})`
        : `${describe(request)}: could not reach the API server (${code})`,
      cause: error,
    });
  }
  return new KubeError({
    kind: "internal",
    request,
    message: `${describe(request)} failed: ${error instanceof Error ? error.name : typeof error}`,
    cause: error,
  });
}

/** A KubeError for an answer Berth could not use, through the same messages. */
export function unreadableAnswer(request: KubeRequest, what: string): KubeError {
  return new KubeError({
    kind: "internal",
    request,
    message: `${describe(request)}: the API server answered ${what}`,
  });
}

/** `kubernetes get sandboxes/berth-… in default`. */
export function describe(request: KubeRequest): string {
  const target =
    request.name === undefined ? request.resource : `${request.resource}/${request.name}`;
  return `kubernetes ${request.verb} ${target} in ${request.namespace}`;
}

/** The parts of a metav1.Status Berth reads; everything else (the message) is left out. */
interface StatusSummary {
  readonly reason: string | undefined;
  readonly message: string;
  readonly detailsName: string | undefined;
  readonly detailsKind: string | undefined;
  readonly causeFields: readonly string[];
  readonly retryAfterSeconds: number | undefined;
}

function fromAnswer(error: ApiException<unknown>, request: KubeRequest): KubeError {
  const status = error.code;
  const summary = readStatus(error.body);
  const reason = summary.reason;
  const head = `${describe(request)} -> ${String(status)}${reason === undefined ? "" : ` ${reason}`}`;
  const retryAfterMs =
    status === 429 || status === 503
      ? (parseRetryAfter(headerOf(error.headers, "retry-after"), Date.now()) ??
        secondsToMs(summary.retryAfterSeconds))
      : undefined;
  const make = (kind: KubeErrorKind, message = head): KubeError =>
    new KubeError({
      kind,
      request,
      message,
      status,
      ...(reason === undefined ? {} : { reason }),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  if (status === 401)
    return make("credential", `${head}: the API server refused Berth's credentials`);
  if (status === 403) {
    // ResourceQuota admission answers 403 Forbidden "exceeded quota: …": no room, not no right.
    if (/exceeded quota/i.test(summary.message))
      return make("capacity", `${head}: the namespace's resource quota is exhausted`);
    return make("credential", `${head}: Berth's credentials may not do this (RBAC)`);
  }
  if (status === 404) {
    if (request.name !== undefined && summary.detailsName === request.name) return make("gone");
    const missing =
      summary.detailsKind === "namespaces" ? `namespace ${request.namespace}` : request.resource;
    return make(
      "not_served",
      `${head}: the cluster does not serve ${missing} (is agent-sandbox installed, and does namespace ${request.namespace} exist?)`,
    );
  }
  if (status === 410) return make("gone");
  if (status === 409) return make("conflict");
  if (status === 422 && request.patchType === "json") return make("patch_not_applied");
  if (status === 429) return make("throttled");
  if (status === 503 && retryAfterMs !== undefined) return make("throttled");
  if (status === 400 || status === 405 || status === 413 || status === 415 || status === 422) {
    const fields =
      summary.causeFields.length === 0 ? "" : ` (fields: ${summary.causeFields.join(", ")})`;
    return make("invalid", `${head}${fields}`);
  }
  if (status >= 500 || status === 408) return make("unavailable");
  return make("internal");
}

function readStatus(body: unknown): StatusSummary {
  let parsed: unknown = body;
  if (typeof body === "string") {
    try {
      parsed = JSON.parse(body) as unknown;
    } catch {
      parsed = undefined;
    }
  }
  const record = isRecord(parsed) ? parsed : {};
  const details = isRecord(record.details) ? record.details : {};
  const causes = Array.isArray(details.causes) ? details.causes : [];
  return {
    reason: stringOr(record.reason),
    message: stringOr(record.message) ?? "",
    detailsName: stringOr(details.name),
    detailsKind: stringOr(details.kind),
    causeFields: causes.flatMap((cause) =>
      isRecord(cause) && typeof cause.field === "string" && cause.field !== "" ? [cause.field] : [],
    ),
    retryAfterSeconds:
      typeof details.retryAfterSeconds === "number" ? details.retryAfterSeconds : undefined,
  };
}

/** node-fetch's FetchError (type "system") and Node's own socket errors carry an errno code. */
function transportCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && code !== "" ? code : undefined;
}

function headerOf(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

function secondsToMs(seconds: number | undefined): number | undefined {
  return seconds === undefined || !Number.isFinite(seconds)
    ? undefined
    : Math.max(0, seconds * 1000);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringOr(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
