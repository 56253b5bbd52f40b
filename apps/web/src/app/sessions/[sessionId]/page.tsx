import { Alert, AlertDescription, AlertTitle } from "@berth/ui/alert";
import Link from "next/link";
import { redirect } from "next/navigation";
import { AlertIcon } from "../../../components/icons.tsx";
import { PageMain } from "../../../components/pageMain.tsx";
import { SessionView } from "../../../components/session/sessionView.tsx";
import { TopBar } from "../../../components/topBar.tsx";
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
  const home = typeof workspace === "string" ? `/?workspace=${workspace}` : "/";
  return (
    <>
      <TopBar home={home} email={user.email}>
        <span aria-hidden="true" className="text-muted-foreground/60">
          /
        </span>
        <Link
          href={home}
          className="text-sm text-muted-foreground no-underline hover:text-foreground"
        >
          Sessions
        </Link>
      </TopBar>
      <PageMain>
        {typeof workspace === "string" ? (
          <HydrateClient>
            <SessionView workspaceId={workspace} sessionId={sessionId} />
          </HydrateClient>
        ) : (
          <Alert role="alert" variant="warning">
            <AlertIcon />
            <AlertTitle>This link names no workspace.</AlertTitle>
            <AlertDescription>
              Open the session from its workspace&apos;s page: <Link href="/">the dashboard</Link>{" "}
              lists every session.
            </AlertDescription>
          </Alert>
        )}
      </PageMain>
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
