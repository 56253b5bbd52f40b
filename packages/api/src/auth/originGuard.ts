import { APIError } from "better-auth/api";

/**
 * Refuses an auth request that changes something from another site's page: a sign-out or
 * sign-in a foreign page makes a browser send (login and logout CSRF). A request with an Origin
 * must name one of Berth's; one without is a script's, allowed unless it carries a cookie (a
 * browser always sends Origin with a POST).
 */
export function refuseForeignOrigin(
  method: string,
  headers: Headers | undefined,
  trustedOrigins: readonly string[],
): void {
  if (method === "GET") return;
  const origin = headers?.get("origin") ?? null;
  const foreign =
    origin === null ? headers?.has("cookie") === true : !trustedOrigins.includes(origin);
  if (!foreign) return;
  throw new APIError("FORBIDDEN", {
    message: `Refused: this request came from ${origin ?? "a page that did not say where it was"}, not from Berth's own pages. Sign in and out on Berth's dashboard.`,
  });
}
