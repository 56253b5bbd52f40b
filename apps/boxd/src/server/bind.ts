import type { IncomingMessage, ServerResponse } from "node:http";
import { BoxError, bindRequestSchema, streamRoutes } from "@berth/box-protocol";
import { checkPod, credential } from "./auth.ts";
import type { BoxdContext } from "./context.ts";
import { readJsonBody } from "./requestBody.ts";
import { sendJson } from "./respond.ts";

/**
 * POST /v1/bind: Berth, having claimed this warm-pool pod, binds its boxd to the box's instance
 * and token, once. Refusals in order: `wrong_pod` (another pod's uid, as every endpoint);
 * `invalid_request` for a boxd started with its token; `unauthorized` without this pod's proof;
 * `invalid_request` for a wrong method or body; `already_exists` once bound to anything else.
 * A repeat of the binding boxd already has answers 200 again: its first reply may have been lost.
 */
export async function handleBind(
  context: BoxdContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { identity } = context;
  checkPod(request, context.podUid);
  if (!identity.pooled) {
    throw new BoxError("invalid_request", "this boxd was started with its token: nothing to bind");
  }
  if (!identity.proofMatches(credential(request, "Bind") ?? "")) {
    throw new BoxError("unauthorized", "missing or wrong bind proof");
  }
  if (request.method !== "POST") {
    throw new BoxError("invalid_request", `${streamRoutes.bind} takes POST`);
  }
  const parsed = bindRequestSchema.safeParse(await readJsonBody(request));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") ?? "";
    throw new BoxError(
      "invalid_request",
      `bind: ${where ? `${where}: ` : ""}${issue?.message ?? ""}`,
    );
  }
  const { instanceId } = parsed.data;
  // No await from here to the reply: identity.bind checks and sets in one step.
  const outcome = identity.bind(parsed.data);
  switch (outcome) {
    case "bound":
      // Every later line of this process names the instance, as a token-mode boxd's do.
      context.logger.setBindings({ instanceId });
      context.logger.info({ instanceId }, "bound");
      break;
    case "unchanged":
      context.logger.info({ instanceId }, "bind repeated: already bound to it");
      break;
    case "taken":
      throw new BoxError("already_exists", "this boxd is already bound to another box");
    case "wrong_instance":
      throw new BoxError(
        "invalid_request",
        "this boxd was started for another instance (BOXD_INSTANCE_ID): bind it to that one",
      );
  }
  sendJson(response, 200, { instanceId });
}
