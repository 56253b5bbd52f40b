import {
  boxOperations,
  streamRoutes,
  type BoxOperationName,
  type OperationInput,
  type OperationResponse,
} from "../operations.ts";
import type { WriteResponse } from "../schemas/files.ts";
import {
  healthResponseSchema,
  readyResponseSchema,
  type HydrateResult,
} from "../schemas/workspace.ts";
import { boxErrorFromResponse } from "../errors.ts";
import { Agent } from "undici";
import {
  callerHeaders,
  callOperation,
  dispatchedBy,
  parseReply,
  send,
  transportError,
  type ClientContext,
} from "./http.ts";
import {
  capture,
  download,
  hydrate,
  upload,
  type BodySource,
  type CaptureInput,
  type CaptureResult,
  type Download,
  type UploadInput,
} from "./streams.ts";
import {
  attachTerminal,
  type AttachTerminalOptions,
  type TerminalConnection,
} from "./terminalAttach.ts";
import type { z } from "zod";

/** True when a request has no required field (zod types an empty object as Record<string, never>). */
type AllOptional<T> = T extends Record<string, never> ? true : Partial<T> extends T ? true : false;

/** Operations whose request has no required field may be called without an argument. */
type OperationMethods = {
  readonly [K in BoxOperationName]: (
    ...input: AllOptional<OperationInput<K>> extends true
      ? [OperationInput<K>?]
      : [OperationInput<K>]
  ) => Promise<OperationResponse<K>>;
};

/** A typed client of one boxd. Every method rejects with a BoxError only. */
export interface BoxClient extends OperationMethods {
  health(): Promise<z.output<typeof healthResponseSchema>>;
  /** `ready: false` while boxd starts or shuts down. */
  ready(): Promise<z.output<typeof readyResponseSchema>>;
  upload(input: UploadInput): Promise<WriteResponse>;
  download(input: { readonly path: string }): Promise<Download>;
  capture(input: CaptureInput): Promise<CaptureResult>;
  /** `encoding: "gzip"`: the body is the tar gzip-compressed, and boxd decompresses it. */
  hydrate(input: { readonly body: BodySource; readonly encoding?: "gzip" }): Promise<HydrateResult>;
  attachTerminal(options: AttachTerminalOptions): Promise<TerminalConnection>;
}

/** Where boxd answers: its HTTP address, or the Unix socket it listens on. */
export type BoxAddress =
  | {
      /** e.g. http://127.0.0.1:7070 (a path prefix is kept). */
      readonly baseUrl: string | URL;
      readonly socketPath?: undefined;
    }
  | { readonly socketPath: string; readonly baseUrl?: undefined };

export type CreateBoxClientOptions = BoxAddress & {
  readonly token: string;
  /**
   * The uid of the pod the caller expects boxd to run in (a Kubernetes box), sent on every
   * request. A boxd started with BOXD_POD_UID refuses a request naming another uid, or none,
   * with `wrong_pod`: the pod's IP may now belong to another pod. It never replaces the token.
   */
  readonly podUid?: string;
  /** Limit for each request; unset waits as long as boxd takes. */
  readonly timeoutMs?: number;
};

/** The origin requests over a socket name: boxd reads only their path and query. */
const SOCKET_ORIGIN = "http://boxd";

export function createBoxClient(options: CreateBoxClientOptions): BoxClient {
  const { socketPath } = options;
  const context: ClientContext = {
    baseUrl: new URL(socketPath === undefined ? options.baseUrl : SOCKET_ORIGIN),
    socketPath,
    dispatcher: socketPath === undefined ? undefined : new Agent({ connect: { socketPath } }),
    token: options.token,
    podUid: options.podUid,
    timeoutMs: options.timeoutMs,
  };
  const operations = Object.fromEntries(
    (Object.keys(boxOperations) as BoxOperationName[]).map((name) => [
      name,
      (input?: OperationInput<typeof name>) => callOperation(context, name, input ?? {}),
    ]),
  ) as unknown as OperationMethods;
  return {
    ...operations,
    health: async () => {
      const response = await send(context, {
        method: "GET",
        path: streamRoutes.health,
        anonymous: true,
      });
      return parseReply(healthResponseSchema, await response.text(), "health");
    },
    ready: () => readiness(context),
    upload: (input) => upload(context, input),
    download: (input) => download(context, input),
    capture: (input) => capture(context, input),
    hydrate: (input) => hydrate(context, input),
    attachTerminal: (attach) => attachTerminal(context, attach),
  };
}

/** Readiness answers 503 with a body while not ready: that is an answer, not a failure. */
async function readiness(context: ClientContext): Promise<z.output<typeof readyResponseSchema>> {
  let response: Response;
  try {
    response = await fetch(new URL(streamRoutes.ready, context.baseUrl), {
      ...dispatchedBy(context),
      headers: callerHeaders(context, { anonymous: true }),
    });
  } catch (error) {
    throw transportError(error);
  }
  const text = await response.text();
  if (response.status !== 200 && response.status !== 503) {
    throw boxErrorFromResponse(response.status, text);
  }
  return parseReply(readyResponseSchema, text, "ready");
}
