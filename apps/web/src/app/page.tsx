import { redirect } from "next/navigation";
import { WorkspaceView } from "../components/dashboard/workspaceView.tsx";
import { signedInUser } from "../server/session.ts";

/** The dashboard: only for a signed-in person; everything inside is per workspace. */
export default async function DashboardPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await signedInUser();
  if (user === null) redirect("/sign-in");
  const { workspace } = await searchParams;
  return (
    <WorkspaceView
      email={user.email}
      requestedId={typeof workspace === "string" ? workspace : undefined}
    />
  );
}
