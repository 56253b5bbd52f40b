"use client";

import { useQuery } from "@tanstack/react-query";
import { asRole, isAdmin, type Role } from "../../lib/roles.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { InvitePanel } from "./invitePanel.tsx";
import { MemberControls } from "./memberControls.tsx";

/**
 * Who is in the workspace. Admins also get the controls to change roles, remove people and
 * invite; for members those controls are not rendered at all.
 */
export function MembersSection({
  workspaceId,
  role,
  myUserId,
}: {
  workspaceId: string;
  role: Role;
  myUserId: string;
}) {
  const trpc = useTRPC();
  const members = useQuery(trpc.members.list.queryOptions({ workspaceId }));
  const admin = isAdmin(role);

  return (
    <section aria-label="Members">
      <h2>Members</h2>
      {members.isPending ? <p aria-busy="true">Loading members…</p> : null}
      <ErrorAlert error={members.error} prefix="Could not load members" />
      {members.data === undefined ? null : (
        <table>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              {admin ? <th scope="col">Manage</th> : null}
            </tr>
          </thead>
          <tbody>
            {members.data.map((member) => (
              <tr key={member.userId}>
                <td>
                  {member.user.email}
                  {member.userId === myUserId ? " (you)" : ""}
                </td>
                <td>{member.user.name}</td>
                {admin ? (
                  <MemberControls
                    workspaceId={workspaceId}
                    myRole={role}
                    member={{
                      userId: member.userId,
                      email: member.user.email,
                      role: asRole(member.role),
                    }}
                  />
                ) : (
                  <td>{member.role}</td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {admin ? <InvitePanel workspaceId={workspaceId} role={role} /> : null}
    </section>
  );
}
