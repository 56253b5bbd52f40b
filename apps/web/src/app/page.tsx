import { redirect } from "next/navigation";
import { SignOutButton } from "../components/signOutButton.tsx";
import { WorkspaceView } from "../components/dashboard/workspaceView.tsx";
import { signedInUser } from "../server/session.ts";
import { getServerQueryClient, HydrateClient, serverTrpc } from "../trpc/server.tsx";

/** The dashboard: only for a signed-in person; everything inside is per workspace. */
export default async function DashboardPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await signedInUser();
  if (user === null) redirect("/sign-in");
  const { workspace } = await searchParams;
  const requestedId = typeof workspace === "string" ? workspace : undefined;
  await prefetchOverview(requestedId);
  return (
    <>
      <header className="topbar">
        <strong>Berth</strong>
        <span className="spacer" />
        <span data-testid="signed-in-email">{user.email}</span>
        <SignOutButton />
      </header>
      <main>
        <HydrateClient>
          <WorkspaceView requestedId={requestedId} />
        </HydrateClient>
      </main>
    </>
  );
}

/**
 * The first screen's data, fetched while the page renders: the person's workspaces, then the
 * shown workspace's sessions and their boxes (the view picks the workspace the same way).
 * A failure is left to the browser, which asks again and shows the error.
 */
async function prefetchOverview(requestedId: string | undefined): Promise<void> {
  const queryClient = getServerQueryClient();
  const me = await queryClient.query(serverTrpc.me.get.queryOptions()).catch(() => null);
  const current = me?.workspaces.find((w) => w.id === requestedId) ?? me?.workspaces[0];
  if (current === undefined) return;
  const scope = { workspaceId: current.id };
  await Promise.all([
    queryClient.query(serverTrpc.sessions.list.queryOptions(scope)).catch(() => undefined),
    queryClient.query(serverTrpc.machines.list.queryOptions(scope)).catch(() => undefined),
  ]);
}
