import { redirect } from "next/navigation";
import { SessionsSection } from "../components/dashboard/sessionsSection.tsx";
import { WorkspaceView } from "../components/dashboard/workspaceView.tsx";
import { asRole, isAdmin } from "../lib/roles.ts";
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
  const { workspace: linked } = await searchParams;
  const requestedId = typeof linked === "string" ? linked : undefined;
  const workspace = await workspaceShown(requestedId);
  const shown = workspace?.id;
  if (workspace !== undefined) await prefetchSections(workspace);
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
async function workspaceShown(
  requestedId: string | undefined,
): Promise<{ id: string; role: string } | undefined> {
  const me = await getServerQueryClient()
    .query(serverTrpc.me.get.queryOptions())
    .catch(() => null);
  return me?.workspaces.find((w) => w.id === requestedId) ?? me?.workspaces[0];
}

/**
 * The lists below the sessions (members, tokens, and for admins pending invitations and the
 * audit log), fetched while the page renders so they arrive with it rather than as skeletons
 * the browser fills in a moment later. A failure is left to the browser, which asks again and
 * shows the error.
 */
async function prefetchSections(workspace: { id: string; role: string }): Promise<void> {
  const queryClient = getServerQueryClient();
  const scope = { workspaceId: workspace.id };
  await Promise.all([
    queryClient.query(serverTrpc.members.list.queryOptions(scope)).catch(() => undefined),
    queryClient.query(serverTrpc.tokens.list.queryOptions(scope)).catch(() => undefined),
    ...(isAdmin(asRole(workspace.role))
      ? [
          queryClient.query(serverTrpc.invitations.list.queryOptions(scope)).catch(() => undefined),
          queryClient
            .query(serverTrpc.audit.list.queryOptions({ ...scope, limit: 50 }))
            .catch(() => undefined),
        ]
      : []),
  ]);
}
