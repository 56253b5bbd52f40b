/**
 * Signs in with email and password, as the dashboard does, and makes an API token for one
 * workspace — what `berth login` and set-up scripts need before they hold a token. The sign-in
 * session is ended again; only the token (shown once) is returned.
 */
export async function createTokenWithPassword(input: {
  /** Where Berth is served, e.g. http://127.0.0.1:3000. */
  readonly url: string;
  readonly email: string;
  readonly password: string;
  readonly workspaceId: string;
  readonly name: string;
  readonly role?: "owner" | "admin" | "member";
  /** Berth's own origin as its dashboard is reached (cookie sign-ins must come from it). */
  readonly origin?: string;
}): Promise<string> {
  const base = input.url.replace(/\/+$/, "");
  const origin = input.origin ?? base;
  const signIn = await fetch(`${base}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ email: input.email, password: input.password }),
  });
  const cookie = signIn.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] ?? "")
    .find((pair) => pair.startsWith("berth.session_token="));
  if (!signIn.ok || cookie === undefined)
    throw new Error(`Sign-in refused (${String(signIn.status)}): check the email and password.`);
  try {
    const created = await fetch(`${base}/api/trpc/tokens.create`, {
      method: "POST",
      headers: { "content-type": "application/json", origin, cookie },
      body: JSON.stringify({
        json: { workspaceId: input.workspaceId, name: input.name, role: input.role ?? "member" },
      }),
    });
    const body = (await created.json()) as {
      result?: { data: { json: { token: string } } };
      error?: { json: { message: string } };
    };
    if (body.result === undefined)
      throw new Error(`Token refused: ${body.error?.json.message ?? String(created.status)}`);
    return body.result.data.json.token;
  } finally {
    await fetch(`${base}/api/auth/sign-out`, {
      method: "POST",
      headers: { "content-type": "application/json", origin, cookie },
      body: "{}",
    });
  }
}
