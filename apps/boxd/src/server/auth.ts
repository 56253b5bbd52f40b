import type { IncomingMessage } from "node:http";
import { tokensMatch } from "@berth/box-protocol";

/** True when the request carries `Authorization: Bearer <token>` with this boxd's token. */
export function isAuthorized(request: IncomingMessage, token: string): boolean {
  const header = request.headers.authorization ?? "";
  const match = /^Bearer (.+)$/.exec(header);
  // Compared even when absent, so a missing header takes the same time as a wrong one.
  return tokensMatch(match?.[1] ?? "", token) && match !== null;
}
