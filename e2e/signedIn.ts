import { expect, type Page } from "@playwright/test";
import { demoAdmin } from "./demoAdmin.ts";

// What the specs do as the signed-in demo admin: sign in, and call the API with the page's
// cookie as another tab (or an agent) would.

/** Signs in as the demo admin through the sign-in page; lands on the overview. */
export async function signIn(page: Page) {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(demoAdmin.email);
  await page.getByLabel("Password").fill(demoAdmin.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/$/);
}

/**
 * A tRPC call with the page's own cookie, as another tab (or an agent) would make it; answers
 * the procedure's result (superjson's `json` part). It names the page's origin, as a browser
 * on Berth's page does (Origin, or Sec-Fetch-Site on a GET): a cookie call that reaches a box
 * is refused without it, reads included.
 */
export async function call(
  page: Page,
  { path, input, kind }: { path: string; input: unknown; kind: "query" | "mutation" },
) {
  const origin = new URL(page.url()).origin;
  // A fresh connection each time: the request context does not retry a kept-alive one that
  // the server closed as idle at the moment it was reused (a reset, not an answer).
  const connection = "close";
  const response =
    kind === "query"
      ? await page.request.get(
          `/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`,
          { headers: { origin, connection } },
        )
      : await page.request.post(`/api/trpc/${path}`, {
          headers: { origin, "content-type": "application/json", connection },
          data: { json: input },
        });
  expect(response.status(), await response.text()).toBe(200);
  const body = (await response.json()) as { result: { data: { json: unknown } } };
  return body.result.data.json;
}

/** A session's scope: what every box procedure and the session page's address take. */
export interface SessionScope {
  readonly workspaceId: string;
  readonly sessionId: string;
}

/** A new session in the demo admin's (first) workspace, made through the API. */
export async function newSession(page: Page, title: string): Promise<SessionScope> {
  const me = (await call(page, { path: "me.get", input: undefined, kind: "query" })) as {
    workspaces: { id: string }[];
  };
  const workspaceId = me.workspaces[0]?.id ?? "";
  const session = (await call(page, {
    path: "sessions.create",
    input: { workspaceId, title },
    kind: "mutation",
  })) as { id: string };
  return { workspaceId, sessionId: session.id };
}

/** The state of a session's group box now (cold, warming, warm, draining). */
export async function groupBoxState(page: Page, scope: SessionScope): Promise<string | undefined> {
  const machines = (await call(page, {
    path: "machines.list",
    input: scope,
    kind: "query",
  })) as { isSessionGroup: boolean; state: string }[];
  return machines.find((machine) => machine.isSessionGroup)?.state;
}
