"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { formatTime } from "../../lib/formatTime.ts";
import { rolesUpTo, type Role } from "../../lib/roles.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";

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
    <>
      <h3>Invitations</h3>
      <form
        aria-label="Invite member"
        className="inline"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate({ workspaceId, role: inviteRole });
        }}
      >
        <label>
          Role for the invitation
          <select
            value={inviteRole}
            onChange={(event) => {
              setInviteRole(
                rolesUpTo(role).find((candidate) => candidate === event.target.value) ?? "member",
              );
            }}
          >
            {rolesUpTo(role).map((candidate) => (
              <option key={candidate} value={candidate}>
                {candidate}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={create.isPending}>
          Invite member
        </button>
      </form>
      <ErrorAlert error={create.error} />
      {create.data === undefined ? null : (
        <div className="once">
          <label>
            Invitation link
            <input
              readOnly
              value={create.data.url}
              onFocus={(event) => {
                event.currentTarget.select();
              }}
            />
          </label>
          <p className="note">
            Send this link to the person you invite ({create.data.role}, valid until{" "}
            {formatTime(create.data.expiresAt)}). It works once and will not be shown again.
          </p>
        </div>
      )}
      <ErrorAlert error={pending.error} prefix="Could not load invitations" />
      <ErrorAlert error={revoke.error} />
      {pending.data?.length === 0 ? <p className="note">No pending invitations.</p> : null}
      {pending.data !== undefined && pending.data.length > 0 ? (
        <table>
          <caption>Pending invitations</caption>
          <thead>
            <tr>
              <th scope="col">Role</th>
              <th scope="col">Invited by</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {pending.data.map((invitation) => (
              <tr key={invitation.id}>
                <td>{invitation.role}</td>
                <td>{invitation.createdBy.email}</td>
                <td>{formatTime(invitation.createdAt)}</td>
                <td>
                  {formatTime(invitation.expiresAt)}
                  {invitation.expiresAt.getTime() < Date.now() ? " (expired)" : ""}
                </td>
                <td>
                  <button
                    type="button"
                    className="danger"
                    disabled={revoke.isPending}
                    onClick={() => {
                      revoke.mutate({ workspaceId, invitationId: invitation.id });
                    }}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
