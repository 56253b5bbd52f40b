import type { IncomingMessage } from "node:http";
import { BoxError, POD_UID_HEADER, tokensMatch } from "@berth/box-protocol";

/** What a request must show to be served: boxd's token and, in a pod, the pod's uid. */
export interface Admission {
  readonly token: string;
  /** The uid of the pod boxd runs in (BOXD_POD_UID); undefined: no pod check (a local box). */
  readonly podUid: string | undefined;
}

/**
 * Admits a request or throws why not: `wrong_pod` when boxd knows its pod and the request
 * expects another (or names none), then `unauthorized` without this boxd's token.
 *
 * A pod's IP is reused by another pod once the box's pod is gone; the uid check makes sure a
 * client talks to the pod it read. The pod is checked first so such a client learns that its
 * box's pod is gone: the pod now at the address has its own token, so "unauthorized" would
 * blame its credentials instead. The uid is no secret (anyone who can list pods reads it, so it
 * is compared plainly): it never opens the box alone, the token is always checked after it.
 */
export function admit(request: IncomingMessage, admission: Admission): void {
  if (admission.podUid !== undefined && request.headers[POD_UID_HEADER] !== admission.podUid) {
    throw new BoxError(
      "wrong_pod",
      "this address serves another pod than the one expected: the box's pod is gone or was replaced",
    );
  }
  if (!isAuthorized(request, admission.token)) {
    throw new BoxError("unauthorized", "missing or wrong token");
  }
}

/** True when the request carries `Authorization: Bearer <token>` with this boxd's token. */
function isAuthorized(request: IncomingMessage, token: string): boolean {
  const header = request.headers.authorization ?? "";
  const match = /^Bearer (.+)$/.exec(header);
  // Compared even when absent, so a missing header takes the same time as a wrong one.
  return tokensMatch(match?.[1] ?? "", token) && match !== null;
}
