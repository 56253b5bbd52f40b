"use client";

import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@berth/ui/card";
import { Skeleton } from "@berth/ui/skeleton";
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

  if (preview.isPending) {
    return (
      <Card aria-busy="true">
        <CardContent className="flex flex-col gap-3">
          <span className="sr-only">Reading the invitation…</span>
          <Skeleton className="h-6 w-2/3" />
          <Skeleton className="h-4 w-full" />
          <Skeleton className="h-9 w-full" />
        </CardContent>
      </Card>
    );
  }
  if (preview.isError) {
    return (
      <Card>
        <CardHeader>
          <CardTitle asChild>
            <h1 className="text-xl">Invitation</h1>
          </CardTitle>
        </CardHeader>
        <CardContent>
          <ErrorAlert error={preview.error} />
        </CardContent>
      </Card>
    );
  }
  const { workspace, role } = preview.data;
  return (
    <Card>
      <CardHeader>
        <CardTitle asChild>
          <h1 className="text-xl">Join {workspace.name}</h1>
        </CardTitle>
        <CardDescription>
          You are invited to <strong className="text-foreground">{workspace.name}</strong> (
          <code>{workspace.slug}</code>) as <strong className="text-foreground">{role}</strong>.
        </CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {signedInAs === null ? (
          <>
            <SignUpForm token={token} />
            <p className="text-center text-sm">
              <Link href={`/sign-in?next=${encodeURIComponent(`/invite/${token}`)}`}>
                I already have an account
              </Link>
            </p>
          </>
        ) : (
          <>
            <p className="text-sm text-muted-foreground">Signed in as {signedInAs}.</p>
            <JoinButton token={token} workspaceName={workspace.name} />
          </>
        )}
      </CardContent>
    </Card>
  );
}
