import type { AppRouter } from "@berth/api";
import { createTRPCClient, httpLink } from "@trpc/client";
import superjson from "superjson";
import { CliError, usageError } from "./errors.ts";

/** The workspace a login chose, as `me.get` tells it. */
export interface ChosenWorkspace {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly role: string;
}

const roles = ["owner", "admin", "member"] as const;

/** The token gets the user's own role; an unknown one (newer server) falls back to the least. */
function tokenRole(role: string): (typeof roles)[number] {
  return roles.find((known) => known === role) ?? "member";
}

export interface PasswordLogin {
  readonly token: string;
  readonly email: string;
  readonly workspace: ChosenWorkspace;
}

/**
 * Signs in with email and password, picks the workspace, makes an API token there with the
 * user's own role, and signs out again. One sign-in does it all, where `createTokenWithPassword`
 * (which needs the workspace first) would take a second: sign-ins are limited to a few a minute.
 */
export async function loginWithPassword(input: {
  readonly url: string;
  /** Berth's own origin as the dashboard is reached (cookie mutations must come from it). */
  readonly origin: string;
  readonly email: string;
  readonly password: string;
  /** An id or slug; without it, the user's only workspace. */
  readonly workspace: string | undefined;
  readonly tokenName: string;
}): Promise<PasswordLogin> {
  const base = input.url.replace(/\/+$/, "");
  const cookie = await signIn(base, input);
  const headers = { cookie, origin: input.origin };
  try {
    const berth = createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${base}/api/trpc`, transformer: superjson, headers })],
    });
    const me = await berth.me.get.query();
    const workspace = chooseWorkspace(me.workspaces, input.workspace);
    const created = await berth.tokens.create.mutate({
      workspaceId: workspace.id,
      name: input.tokenName,
      role: tokenRole(workspace.role),
    });
    return { token: created.token, email: me.user.email, workspace };
  } finally {
    await fetch(`${base}/api/auth/sign-out`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: "{}",
    }).catch(() => undefined);
  }
}

async function signIn(
  base: string,
  input: { readonly origin: string; readonly email: string; readonly password: string },
): Promise<string> {
  const response = await fetch(`${base}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: input.origin },
    body: JSON.stringify({ email: input.email, password: input.password }),
  });
  const cookie = response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] ?? "")
    .find((pair) => pair.startsWith("berth.session_token="));
  if (response.ok && cookie !== undefined) return cookie;
  const status = response.status;
  if (status === 429)
    throw new CliError({
      reason: "retry",
      code: "too_many_attempts",
      message: "Too many sign-in attempts.",
      hint: "Wait a minute, then run `berth login` again.",
    });
  if (status === 403)
    throw new CliError({
      reason: "forbidden",
      code: "origin_refused",
      message: `Berth refused the sign-in's origin (${input.origin}).`,
      hint: "Pass --origin with the address people open the dashboard at.",
    });
  if (status === 400 || status === 401)
    throw new CliError({
      reason: "signedOut",
      code: "sign_in_refused",
      message: "Sign-in refused: wrong email or password.",
      hint: "Check them and run `berth login` again.",
    });
  throw new CliError({
    reason: "unexpected",
    code: "sign_in_failed",
    message: `Sign-in failed: the server answered ${String(status)}.`,
    hint: `Check that ${base} is Berth's address.`,
  });
}

function chooseWorkspace(
  workspaces: readonly ChosenWorkspace[],
  wanted: string | undefined,
): ChosenWorkspace {
  const names = workspaces.map((w) => `${w.slug} (${w.id})`).join(", ");
  if (wanted !== undefined) {
    const found = workspaces.find((w) => w.id === wanted || w.slug === wanted);
    if (found === undefined)
      throw new CliError({
        reason: "notFound",
        code: "workspace_not_found",
        message: `You are not a member of workspace ${wanted}.`,
        hint: workspaces.length === 0 ? "Ask an admin for an invitation." : `Yours: ${names}.`,
      });
    return found;
  }
  const [only, another] = workspaces;
  if (only === undefined)
    throw new CliError({
      reason: "notFound",
      code: "no_workspace",
      message: "You belong to no workspace yet.",
      hint: "Ask an admin for an invitation, or create a workspace in the dashboard.",
    });
  if (another !== undefined)
    throw usageError(
      `You belong to ${String(workspaces.length)} workspaces: say which one.`,
      `Pass --workspace <id or slug>; yours: ${names}.`,
    );
  return only;
}
