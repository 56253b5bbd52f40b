"use client";

import { Badge } from "@berth/ui/badge";
import { TableCell, TableRow } from "@berth/ui/table";
import { useQuery } from "@tanstack/react-query";
import { asRole, isAdmin, type Role } from "../../lib/roles.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { QueryTable } from "../queryTable.tsx";
import { Section } from "../section.tsx";
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
    <Section
      title="Members"
      description={admin ? "Change roles, remove people and invite new ones." : undefined}
    >
      <QueryTable
        query={members}
        loading="Loading members…"
        failure="Could not load members"
        columns={["Email", "Name", "Role", admin && "Manage"]}
        row={(member) => (
          <TableRow key={member.userId}>
            <TableCell className="font-medium">
              {member.user.email}
              {member.userId === myUserId ? " (you)" : ""}
            </TableCell>
            <TableCell>{member.user.name}</TableCell>
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
              <TableCell>
                <Badge variant="secondary">{member.role}</Badge>
              </TableCell>
            )}
          </TableRow>
        )}
      />
      {admin ? <InvitePanel workspaceId={workspaceId} role={role} /> : null}
    </Section>
  );
}
