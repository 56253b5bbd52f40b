"use client";

import { Button } from "@berth/ui/button";
import { useMutation } from "@tanstack/react-query";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";

/** Accepts the invitation as the signed-in person, then opens the workspace. */
export function JoinButton({ token, workspaceName }: { token: string; workspaceName: string }) {
  const trpc = useTRPC();
  const accept = useMutation(
    trpc.invitations.accept.mutationOptions({
      onSuccess: ({ workspaceId }) => {
        window.location.assign(`/?workspace=${workspaceId}`);
      },
    }),
  );
  return (
    <>
      <Button
        type="button"
        className="w-full"
        disabled={accept.isPending || accept.isSuccess}
        onClick={() => {
          accept.mutate({ token });
        }}
      >
        Join {workspaceName}
      </Button>
      <ErrorAlert error={accept.error} />
    </>
  );
}
