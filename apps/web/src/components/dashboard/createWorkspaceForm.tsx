"use client";

import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@berth/ui/card";
import { Input } from "@berth/ui/input";
import { Label } from "@berth/ui/label";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { formText } from "../../lib/formText.ts";
import { submitHandler } from "../../lib/submitHandler.ts";
import { SubmitButton } from "../submitButton.tsx";

/** A first workspace for someone who has none; its creator becomes its owner. */
export function CreateWorkspaceForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const create = useMutation(
    trpc.workspaces.create.mutationOptions({
      onSuccess: async (workspace) => {
        await queryClient.invalidateQueries(trpc.me.pathFilter());
        router.push(`/?workspace=${workspace.id}`);
      },
    }),
  );
  return (
    <Card>
      <CardHeader>
        <CardTitle asChild>
          <h2>Create a workspace</h2>
        </CardTitle>
        <CardDescription>You become its owner and can invite others.</CardDescription>
      </CardHeader>
      <CardContent>
        <form
          aria-label="Create a workspace"
          className="flex flex-col gap-4"
          onSubmit={submitHandler((fields) => {
            create.mutate({ slug: formText(fields, "slug"), name: formText(fields, "name") });
          })}
        >
          <Label>
            Slug
            <Input
              name="slug"
              required
              minLength={3}
              maxLength={40}
              pattern="[a-z0-9]+(-[a-z0-9]+)*"
              title="lowercase letters, digits and single dashes"
            />
          </Label>
          <Label>
            Name
            <Input name="name" required maxLength={100} />
          </Label>
          <ErrorAlert error={create.error} />
          <SubmitButton busy={create.isPending}>Create workspace</SubmitButton>
        </form>
      </CardContent>
    </Card>
  );
}
