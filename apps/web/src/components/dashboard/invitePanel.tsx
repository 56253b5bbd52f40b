"use client";

import { Button } from "@berth/ui/button";
import { TableCell, TableRow } from "@berth/ui/table";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { formatTime } from "../../lib/formatTime.ts";
import type { Role } from "../../lib/roles.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { QueryTable } from "../queryTable.tsx";
import { RoleSelect } from "../roleSelect.tsx";
import { ShownOnce } from "../shownOnce.tsx";
import { SubmitButton } from "../submitButton.tsx";

/**
 * Invitation links (admins only). The link is the invitation's only copy of its token: it is
 * shown here once, after creation, and the list below shows only what the API keeps.
 */
export function InvitePanel({ workspaceId, role }: { workspaceId: string; role: Role }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [inviteRole, setInviteRole] = useState<Role>("member");
  const pending = useQuery(trpc.invitations.list.queryOptions({ workspaceId }));
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.invitations.pathFilter()),
      queryClient.invalidateQueries(trpc.audit.pathFilter()),
    ]);
  const create = useMutation(trpc.invitations.create.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.invitations.revoke.mutationOptions({ onSettled: refresh }));

  return (
    <div className="flex flex-col gap-4 border-t border-border pt-5">
      <h3 className="text-sm font-semibold">Invitations</h3>
      <form
        aria-label="Invite member"
        className="flex flex-wrap items-end gap-3"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate({ workspaceId, role: inviteRole });
        }}
      >
        <RoleSelect
          label="Role for the invitation"
          ceiling={role}
          value={inviteRole}
          onChange={setInviteRole}
        />
        <SubmitButton busy={create.isPending}>Invite member</SubmitButton>
      </form>
      <ErrorAlert error={create.error} />
      {create.data === undefined ? null : (
        <ShownOnce label="Invitation link" value={create.data.url}>
          Send this link to the person you invite ({create.data.role}, valid until{" "}
          {formatTime(create.data.expiresAt)}). It works once and will not be shown again.
        </ShownOnce>
      )}
      <ErrorAlert error={revoke.error} />
      <QueryTable
        query={pending}
        loading="Loading invitations…"
        failure="Could not load invitations"
        empty={{
          title: "No pending invitations.",
          next: "Choose a role and press Invite member, then send the link to the person you invite.",
        }}
        caption="Pending invitations"
        columns={["Role", "Invited by", "Created", "Expires", ""]}
        row={(invitation) => (
          <TableRow key={invitation.id}>
            <TableCell>{invitation.role}</TableCell>
            <TableCell>{invitation.createdBy.email}</TableCell>
            <TableCell className="whitespace-nowrap text-muted-foreground">
              {formatTime(invitation.createdAt)}
            </TableCell>
            <TableCell className="whitespace-nowrap text-muted-foreground">
              {formatTime(invitation.expiresAt)}
              {invitation.expiresAt.getTime() < Date.now() ? " (expired)" : ""}
            </TableCell>
            <TableCell className="w-28 text-right">
              <Button
                type="button"
                variant="destructive-outline"
                size="sm"
                disabled={revoke.isPending}
                onClick={() => {
                  revoke.mutate({ workspaceId, invitationId: invitation.id });
                }}
              >
                Revoke
              </Button>
            </TableCell>
          </TableRow>
        )}
      />
    </div>
  );
}
