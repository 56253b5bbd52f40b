"use client";

import { Input } from "@berth/ui/input";
import { Label } from "@berth/ui/label";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { formText } from "../../lib/formText.ts";
import { submitHandler } from "../../lib/submitHandler.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { SubmitButton } from "../submitButton.tsx";

/** Starts a session; the list (rendered on the server) is rendered again with it. */
export function NewSessionForm({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(
    trpc.sessions.create.mutationOptions({ onSuccess: () => router.refresh() }),
  );
  return (
    <>
      <form
        aria-label="New session"
        className="flex flex-wrap items-end gap-3 border-t border-border pt-4"
        onSubmit={submitHandler((fields, form) => {
          create.mutate(
            { workspaceId, title: formText(fields, "title") },
            { onSuccess: () => form.reset() },
          );
        })}
      >
        <Label className="w-72">
          Title
          <Input name="title" required maxLength={100} />
        </Label>
        <SubmitButton busy={create.isPending}>New session</SubmitButton>
      </form>
      <ErrorAlert error={create.error} />
    </>
  );
}
