"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { formText } from "../../lib/formText.ts";
import { submitHandler } from "../../lib/submitHandler.ts";

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
    <form
      aria-label="Create a workspace"
      className="stack"
      onSubmit={submitHandler((fields) => {
        create.mutate({ slug: formText(fields, "slug"), name: formText(fields, "name") });
      })}
    >
      <h2>Create a workspace</h2>
      <label>
        Slug
        <input
          name="slug"
          required
          minLength={3}
          maxLength={40}
          pattern="[a-z0-9]+(-[a-z0-9]+)*"
          title="lowercase letters, digits and single dashes"
        />
      </label>
      <label>
        Name
        <input name="name" required maxLength={100} />
      </label>
      <ErrorAlert error={create.error} />
      <button type="submit" disabled={create.isPending}>
        Create workspace
      </button>
    </form>
  );
}
