import { redirect } from "next/navigation";
import { SessionView } from "../../../components/session/sessionView.tsx";
import { SignOutButton } from "../../../components/signOutButton.tsx";
import { signedInUser } from "../../../server/session.ts";
import { getServerQueryClient, HydrateClient, serverTrpc } from "../../../trpc/server.tsx";

/** One session: its machines and its lease's timeline, live. */
export default async function SessionPage({
  params,
  searchParams,
}: {
  params: Promise<{ sessionId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await signedInUser();
  if (user === null) redirect("/sign-in");
  const { sessionId } = await params;
  const { workspace } = await searchParams;
  if (typeof workspace === "string") await prefetchSession({ workspaceId: workspace, sessionId });
  return (
    <>
      <header className="topbar">
        <a href={typeof workspace === "string" ? `/?workspace=${workspace}` : "/"}>
          <strong>Berth</strong>
        </a>
        <span className="spacer" />
        <span data-testid="signed-in-email">{user.email}</span>
        <SignOutButton />
      </header>
      <main className="session-page">
        {typeof workspace === "string" ? (
          <HydrateClient>
            <SessionView workspaceId={workspace} sessionId={sessionId} />
          </HydrateClient>
        ) : (
          <p role="alert">
            This link names no workspace. Open the session from its workspace&apos;s page.
          </p>
        )}
      </main>
    </>
  );
}

/**
 * The first screen's data, fetched while the page renders (the same queries the view makes);
 * a failure is left to the browser, which asks again and shows the error.
 */
async function prefetchSession(scope: { workspaceId: string; sessionId: string }) {
  const queryClient = getServerQueryClient();
  await Promise.all([
    queryClient.query(serverTrpc.sessions.get.queryOptions(scope)).catch(() => undefined),
    queryClient.query(serverTrpc.machines.list.queryOptions(scope)).catch(() => undefined),
    queryClient
      .query(serverTrpc.leases.timeline.queryOptions({ ...scope, limit: 200 }))
      .catch(() => undefined),
  ]);
}
