import { Agent } from "undici";
import { AUTH_HEADER, streamRoutes } from "../operations.ts";
import { bindRequestSchema, bindResponseSchema, type BindResponse } from "../schemas/bind.ts";
import { BoxError } from "../boxError.ts";
import type { BoxAddress } from "./boxClient.ts";
import { parseReply, readText, send, type ClientContext } from "./http.ts";

export type BindBoxOptions = BoxAddress & {
  /** The uid of the claimed pod: boxd checks it first, and the proof is over it. */
  readonly podUid: string;
  /** poolBindProof(poolKey, podUid), sent as `Authorization: Bind <proof>`. */
  readonly proof: string;
  /** The box instance the pod now serves. */
  readonly instanceId: string;
  /** The bearer token the box's clients will present from now on. */
  readonly token: string;
  readonly signal?: AbortSignal;
};

/** The origin requests over a socket name: boxd reads only their path and query. */
const SOCKET_ORIGIN = "http://boxd";

/**
 * Binds an unbound warm-pool boxd to its box: POST /v1/bind. Resolves with the bound instance;
 * a repeat of the same binding (its first reply lost) resolves again, while a boxd bound to
 * anything else refuses with `already_exists`. Every failure rejects with a BoxError only.
 *
 * One call per pod, so no client to keep: a socket address gets its own dispatcher, closed once
 * the reply is read.
 */
export async function bindBox(options: BindBoxOptions): Promise<BindResponse> {
  const body = bindRequestSchema.safeParse({
    instanceId: options.instanceId,
    token: options.token,
  });
  if (!body.success) {
    const issue = body.error.issues[0];
    throw new BoxError(
      "invalid_request",
      `bind: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? ""}`,
    );
  }
  const { socketPath } = options;
  const baseUrl = URL.parse(socketPath === undefined ? String(options.baseUrl) : SOCKET_ORIGIN);
  if (baseUrl === null) throw new BoxError("invalid_request", "bind: baseUrl is not a URL");
  const dispatcher = socketPath === undefined ? undefined : new Agent({ connect: { socketPath } });
  const context: ClientContext = {
    baseUrl,
    socketPath,
    dispatcher,
    // The bind carries a proof, not a bearer token (sent anonymous below).
    token: "",
    podUid: options.podUid,
    timeoutMs: undefined,
  };
  try {
    const response = await send(context, {
      method: "POST",
      path: streamRoutes.bind,
      body: JSON.stringify(body.data),
      headers: { "content-type": "application/json", [AUTH_HEADER]: `Bind ${options.proof}` },
      anonymous: true,
      signal: options.signal,
    });
    return parseReply(bindResponseSchema, await readText(response), "bind");
  } finally {
    // Not awaited: closing waits for nothing once the reply is read, and must not turn a
    // BoxError into another failure.
    void dispatcher?.close().catch(() => undefined);
  }
}
