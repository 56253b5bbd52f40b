/**
 * A sign-in or sign-up answer without the session token better-auth puts in its JSON beside
 * the cookie: the token travels only in the HttpOnly cookie, where a page's scripts cannot read
 * it. `undefined` when the answer carries none (an error, or a body without the field).
 */
export function withoutSessionToken(returned: unknown): Record<string, unknown> | undefined {
  if (returned === null || typeof returned !== "object" || !("token" in returned)) return undefined;
  if (returned instanceof Error) return undefined;
  const body: Record<string, unknown> = { ...returned };
  delete body.token;
  return body;
}
