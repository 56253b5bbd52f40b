import { redirect } from "next/navigation";
import { SessionView } from "../../../components/session/sessionView.tsx";
import { SignOutButton } from "../../../components/signOutButton.tsx";
import { signedInUser } from "../../../server/session.ts";

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
          <SessionView workspaceId={workspace} sessionId={sessionId} />
        ) : (
          <p role="alert">
            This link names no workspace. Open the session from its workspace&apos;s page.
          </p>
        )}
      </main>
    </>
  );
}
