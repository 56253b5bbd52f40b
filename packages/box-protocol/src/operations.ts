import type { z } from "zod";
import {
  uploadAbortResponseSchema,
  uploadBeginRequestSchema,
  uploadBeginResponseSchema,
  uploadChunkRequestSchema,
  uploadChunkResponseSchema,
  uploadCommitResponseSchema,
  uploadIdRequestSchema,
} from "./schemas/chunkedUpload.ts";
import { execRequestSchema, execResponseSchema } from "./schemas/exec.ts";
import {
  listResponseSchema,
  mkdirRequestSchema,
  moveRequestSchema,
  moveResponseSchema,
  pathRequestSchema,
  pathResponseSchema,
  readRequestSchema,
  readResponseSchema,
  removeRequestSchema,
  statResponseSchema,
  writeRequestSchema,
  writeResponseSchema,
} from "./schemas/files.ts";
import {
  emptyRequestSchema,
  gitAddRequestSchema,
  gitBranchResponseSchema,
  gitBranchesResponseSchema,
  gitCheckoutRequestSchema,
  gitCommitRequestSchema,
  gitCommitResponseSchema,
  gitDiffRequestSchema,
  gitLogRequestSchema,
  gitLogResponseSchema,
  gitShowRequestSchema,
  gitStatusResponseSchema,
  gitTextResponseSchema,
  okResponseSchema,
} from "./schemas/git.ts";
import {
  listTerminalsResponseSchema,
  openTerminalRequestSchema,
  terminalIdRequestSchema,
  terminalInfoSchema,
  terminalInputRequestSchema,
  terminalReadRequestSchema,
  terminalReadResponseSchema,
  terminalResizeRequestSchema,
} from "./schemas/terminals.ts";
import { manifestResponseSchema, revisionResponseSchema } from "./schemas/workspace.ts";

interface Operation<TRequest extends z.ZodType, TResponse extends z.ZodType> {
  /** Every JSON operation is a POST of its request to this path. */
  readonly path: string;
  readonly request: TRequest;
  readonly response: TResponse;
}

const op = <TRequest extends z.ZodType, TResponse extends z.ZodType>(
  path: string,
  request: TRequest,
  response: TResponse,
): Operation<TRequest, TResponse> => ({ path, request, response });

/**
 * The JSON operations: one table shared by boxd (which registers a handler per key, checked
 * by the compiler) and the client (which has a method per key). Streams — upload, download,
 * capture, hydrate and terminal attach — are separate endpoints (see `streamRoutes`).
 */
export const boxOperations = {
  list: op("/v1/files/list", pathRequestSchema, listResponseSchema),
  stat: op("/v1/files/stat", pathRequestSchema, statResponseSchema),
  read: op("/v1/files/read", readRequestSchema, readResponseSchema),
  write: op("/v1/files/write", writeRequestSchema, writeResponseSchema),
  mkdir: op("/v1/files/mkdir", mkdirRequestSchema, pathResponseSchema),
  move: op("/v1/files/move", moveRequestSchema, moveResponseSchema),
  remove: op("/v1/files/remove", removeRequestSchema, pathResponseSchema),
  // The upload in JSON chunks (schemas/chunkedUpload.ts): what an agent's channel can carry.
  uploadBegin: op("/v1/files/uploads/begin", uploadBeginRequestSchema, uploadBeginResponseSchema),
  uploadChunk: op("/v1/files/uploads/chunk", uploadChunkRequestSchema, uploadChunkResponseSchema),
  uploadCommit: op("/v1/files/uploads/commit", uploadIdRequestSchema, uploadCommitResponseSchema),
  uploadAbort: op("/v1/files/uploads/abort", uploadIdRequestSchema, uploadAbortResponseSchema),
  gitStatus: op("/v1/git/status", emptyRequestSchema, gitStatusResponseSchema),
  gitDiff: op("/v1/git/diff", gitDiffRequestSchema, gitTextResponseSchema),
  gitLog: op("/v1/git/log", gitLogRequestSchema, gitLogResponseSchema),
  gitShow: op("/v1/git/show", gitShowRequestSchema, gitTextResponseSchema),
  gitBranches: op("/v1/git/branches", emptyRequestSchema, gitBranchesResponseSchema),
  gitCheckout: op("/v1/git/checkout", gitCheckoutRequestSchema, gitBranchResponseSchema),
  gitAdd: op("/v1/git/add", gitAddRequestSchema, okResponseSchema),
  gitCommit: op("/v1/git/commit", gitCommitRequestSchema, gitCommitResponseSchema),
  exec: op("/v1/exec", execRequestSchema, execResponseSchema),
  openTerminal: op("/v1/terminals/open", openTerminalRequestSchema, terminalInfoSchema),
  listTerminals: op("/v1/terminals/list", emptyRequestSchema, listTerminalsResponseSchema),
  writeTerminal: op("/v1/terminals/input", terminalInputRequestSchema, okResponseSchema),
  resizeTerminal: op("/v1/terminals/resize", terminalResizeRequestSchema, okResponseSchema),
  readTerminal: op("/v1/terminals/read", terminalReadRequestSchema, terminalReadResponseSchema),
  closeTerminal: op("/v1/terminals/close", terminalIdRequestSchema, okResponseSchema),
  manifest: op("/v1/workspace/manifest", emptyRequestSchema, manifestResponseSchema),
  revision: op("/v1/workspace/revision", emptyRequestSchema, revisionResponseSchema),
} as const;

export type BoxOperations = typeof boxOperations;
export type BoxOperationName = keyof BoxOperations;
/** What a caller passes (defaults optional). */
export type OperationInput<K extends BoxOperationName> = z.input<BoxOperations[K]["request"]>;
/** What a handler receives (defaults applied). */
export type OperationRequest<K extends BoxOperationName> = z.output<BoxOperations[K]["request"]>;
export type OperationResponse<K extends BoxOperationName> = z.output<BoxOperations[K]["response"]>;

/** The streaming endpoints. */
export const streamRoutes = {
  health: "/healthz",
  ready: "/readyz",
  /** PUT, raw body; options in the query string (uploadQuerySchema). */
  upload: "/v1/files/upload",
  /** GET ?path=… */
  download: "/v1/files/download",
  /** GET: a tar of the workspace, its manifest as the last entry. */
  capture: "/v1/workspace/capture",
  /** PUT, a tar body: extracts into an empty workspace. */
  hydrate: "/v1/workspace/hydrate",
  /** WebSocket: /v1/terminals/attach?id=…&since=N */
  attach: "/v1/terminals/attach",
  /**
   * POST, a JSON bindRequestSchema body, `Authorization: Bind <poolBindProof>` and the pod uid
   * header: binds an unbound warm-pool boxd to its box, once (client/bindBox.ts).
   */
  bind: "/v1/bind",
} as const;

/** A capture's reply header: boxd's estimate of the archive's size in bytes, for progress. */
export const CAPTURE_ESTIMATE_HEADER = "x-berth-estimated-bytes";

/** The header carrying the token: `Authorization: Bearer <token>`. */
export const AUTH_HEADER = "authorization";

/**
 * The header naming the pod uid the caller expects to reach (Kubernetes boxes; boxd checks it
 * when started with BOXD_POD_UID). A pod's IP is reused by another pod once the box's pod is
 * gone: the uid makes sure the client talks to the pod it read, and a mismatch is answered
 * `wrong_pod`. The uid is no secret (anyone who can list pods reads it), so it never opens a
 * box on its own: the token is still required.
 */
export const POD_UID_HEADER = "x-berth-pod-uid";
