import { redirect } from "next/navigation";
import { SignOutButton } from "../components/signOutButton.tsx";
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
    <>
      <header className="topbar">
        <strong>Berth</strong>
        <span className="spacer" />
        <span data-testid="signed-in-email">{user.email}</span>
        <SignOutButton />
      </header>
      <main>
        <WorkspaceView requestedId={typeof workspace === "string" ? workspace : undefined} />
      </main>
    </>
  );
}
