"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { JoinButton } from "./joinButton.tsx";
import { SignUpForm } from "./signUpForm.tsx";

/** What an invitation link offers, and the way in: join as yourself, or create an account. */
export function InviteView({ token, signedInAs }: { token: string; signedInAs: string | null }) {
  const trpc = useTRPC();
  const preview = useQuery(trpc.invitations.preview.queryOptions({ token }));

  if (preview.isPending) return <p aria-busy="true">Reading the invitation…</p>;
  if (preview.isError) {
    return (
      <>
        <h1>Invitation</h1>
        <ErrorAlert error={preview.error} />
      </>
    );
  }
  const { workspace, role } = preview.data;
  return (
    <>
      <h1>Join {workspace.name}</h1>
      <p>
        You are invited to <strong>{workspace.name}</strong> ({workspace.slug}) as{" "}
        <strong>{role}</strong>.
      </p>
      {signedInAs === null ? (
        <>
          <SignUpForm token={token} />
          <p>
            <Link href={`/sign-in?next=${encodeURIComponent(`/invite/${token}`)}`}>
              I already have an account
            </Link>
          </p>
        </>
      ) : (
        <>
          <p>Signed in as {signedInAs}.</p>
          <JoinButton token={token} workspaceName={workspace.name} />
        </>
      )}
    </>
  );
}
