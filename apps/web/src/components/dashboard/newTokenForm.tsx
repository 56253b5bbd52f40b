"use client";

import { Input } from "@berth/ui/input";
import { Label } from "@berth/ui/label";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Role } from "../../lib/roles.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { RoleSelect } from "../roleSelect.tsx";
import { ShownOnce } from "../shownOnce.tsx";
import { formText } from "../../lib/formText.ts";
import { submitHandler } from "../../lib/submitHandler.ts";
import { SubmitButton } from "../submitButton.tsx";

/** Lifetime in days from the form; empty means the token lives until revoked. */
function lifetimeDays(value: string): number | null {
  return value.trim() === "" ? null : Number(value);
}

/**
 * Creates a token with a role no higher than the creator's. The token itself is in the create
 * response only (Berth keeps its hash), so it is shown once, here, until the next one.
 */
export function NewTokenForm({ workspaceId, role }: { workspaceId: string; role: Role }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [tokenRole, setTokenRole] = useState<Role>("member");
  const create = useMutation(
    trpc.tokens.create.mutationOptions({
      onSuccess: () =>
        Promise.all([
          queryClient.invalidateQueries(trpc.tokens.pathFilter()),
          queryClient.invalidateQueries(trpc.audit.pathFilter()),
        ]),
    }),
  );

  return (
    <div className="flex flex-col gap-3">
      <form
        aria-label="New API token"
        className="flex flex-wrap items-end gap-3"
        onSubmit={submitHandler((fields, form) => {
          create.mutate(
            {
              workspaceId,
              name: formText(fields, "name"),
              role: tokenRole,
              expiresInDays: lifetimeDays(formText(fields, "days")),
            },
            { onSuccess: () => form.reset() },
          );
        })}
      >
        <Label className="w-56">
          Name
          <Input name="name" required maxLength={100} />
        </Label>
        <RoleSelect label="Token role" ceiling={role} value={tokenRole} onChange={setTokenRole} />
        <Label className="w-36">
          Lifetime (days)
          <Input
            name="days"
            type="number"
            min={1}
            max={365}
            step={1}
            defaultValue={90}
            aria-describedby="token-days-hint"
          />
        </Label>
        <SubmitButton busy={create.isPending}>Create token</SubmitButton>
      </form>
      <p id="token-days-hint" className="text-xs text-muted-foreground">
        1 to 365 days; leave empty for a token that lasts until revoked.
      </p>
      <ErrorAlert error={create.error} />
      {create.data === undefined ? null : (
        <ShownOnce label="New token" value={create.data.token}>
          Copy it now: it will not be shown again. Send it as <code>Authorization: Bearer …</code>.
        </ShownOnce>
      )}
    </div>
  );
}
