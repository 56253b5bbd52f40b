import { redirect } from "next/navigation";
import { MachinesView } from "../../components/machines/machinesView.tsx";
import { signedInUser } from "../../server/session.ts";
import { getServerQueryClient, HydrateClient, serverTrpc } from "../../trpc/server.tsx";

/** The workspace's enrolled machines: only for a signed-in person, per workspace. */
export default async function MachinesPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { workspace: linked } = await searchParams;
  const requestedId = typeof linked === "string" ? linked : undefined;
  const user = await signedInUser();
  if (user === null) {
    const here = requestedId === undefined ? "/machines" : `/machines?workspace=${requestedId}`;
    redirect(`/sign-in?next=${encodeURIComponent(here)}`);
  }
  await prefetchMachines(requestedId);
  return (
    <HydrateClient>
      <MachinesView email={user.email} requestedId={requestedId} />
    </HydrateClient>
  );
}

/**
 * The person's workspaces and the shown one's machines, fetched while the page renders so the
 * list arrives with it. A failure is left to the browser, which asks again and shows the error.
 */
async function prefetchMachines(requestedId: string | undefined): Promise<void> {
  const queryClient = getServerQueryClient();
  const me = await queryClient.query(serverTrpc.me.get.queryOptions()).catch(() => null);
  const shown = me?.workspaces.find((w) => w.id === requestedId) ?? me?.workspaces[0];
  if (shown === undefined) return;
  await queryClient
    .query(serverTrpc.machines.listWorkspace.queryOptions({ workspaceId: shown.id }))
    .catch(() => undefined);
}
