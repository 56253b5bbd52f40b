import type { IncomingMessage } from "node:http";
import { BoxError, POD_UID_HEADER, tokensMatch } from "@berth/box-protocol";
import type { BoxdIdentity } from "./identity.ts";

/** What a request must show to be served: boxd's token and, in a pod, the pod's uid. */
export interface Admission {
  /** Holds the token; a warm-pool boxd has none until it is bound. */
  readonly identity: BoxdIdentity;
  /** The uid of the pod boxd runs in (BOXD_POD_UID); undefined: no pod check (a local box). */
  readonly podUid: string | undefined;
}

/**
 * Admits a request or throws why not: `wrong_pod` when boxd knows its pod and the request
 * expects another (or names none), `unavailable` while a warm-pool boxd is not yet bound, then
 * `unauthorized` without this boxd's token.
 *
 * A pod's IP is reused by another pod once the box's pod is gone; the uid check makes sure a
 * client talks to the pod it read. The pod is checked first so such a client learns that its
 * box's pod is gone: the pod now at the address has its own token, so "unauthorized" would
 * blame its credentials instead. The uid is no secret (anyone who can list pods reads it, so it
 * is compared plainly): it never opens the box alone, the token is always checked after it.
 */
export function admit(request: IncomingMessage, admission: Admission): void {
  checkPod(request, admission.podUid);
  const binding = admission.identity.binding;
  if (binding === undefined) {
    throw new BoxError(
      "unavailable",
      "this boxd is a warm-pool pod not yet bound to a box: Berth binds it when it claims the pod; try again after the bind",
    );
  }
  if (!isAuthorized(request, binding.token)) {
    throw new BoxError("unauthorized", "missing or wrong token");
  }
}

/** Throws `wrong_pod` when boxd knows its pod and the request names another uid, or none. */
export function checkPod(request: IncomingMessage, podUid: string | undefined): void {
  if (podUid !== undefined && request.headers[POD_UID_HEADER] !== podUid) {
    throw new BoxError(
      "wrong_pod",
      "this address serves another pod than the one expected: the box's pod is gone or was replaced",
    );
  }
}

/** True when the request carries `Authorization: Bearer <token>` with this boxd's token. */
function isAuthorized(request: IncomingMessage, token: string): boolean {
  const presented = credential(request, "Bearer");
  // Compared even when absent, so a missing header takes the same time as a wrong one.
  return tokensMatch(presented ?? "", token) && presented !== undefined;
}

/**
 * What the request's `Authorization: <scheme> <credential>` carries; undefined when it has no
 * such header. Bearer carries the token, Bind a warm-pool pod's bind proof (bind.ts).
 */
export function credential(
  request: IncomingMessage,
  scheme: "Bearer" | "Bind",
): string | undefined {
  const match = new RegExp(`^${scheme} (.+)$`).exec(request.headers.authorization ?? "");
  return match?.[1];
}
