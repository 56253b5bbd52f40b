import { redirect } from "next/navigation";
import { SessionsSection } from "../components/dashboard/sessionsSection.tsx";
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
  const shown = await workspaceShown(requestedId);
  return (
    <HydrateClient>
      <WorkspaceView
        email={user.email}
        requestedId={requestedId}
        sessions={
          shown === undefined
            ? undefined
            : { workspaceId: shown, section: <SessionsSection workspaceId={shown} /> }
        }
      />
    </HydrateClient>
  );
}

/**
 * The workspace the view will show (the one in the link if the person is in it, else their
 * first), found while the page renders so its sessions arrive with the page. The person's
 * workspaces go to the browser's query cache; a failure is left to the browser, which asks
 * again and shows the error.
 */
async function workspaceShown(requestedId: string | undefined): Promise<string | undefined> {
  const me = await getServerQueryClient()
    .query(serverTrpc.me.get.queryOptions())
    .catch(() => null);
  return (me?.workspaces.find((w) => w.id === requestedId) ?? me?.workspaces[0])?.id;
}
