"use client";

import { Badge } from "@berth/ui/badge";
import { Button } from "@berth/ui/button";
import { Select } from "@berth/ui/select";
import { TableCell } from "@berth/ui/table";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { roleAtLeast, rolesUpTo, type Role } from "../../lib/roles.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";

/**
 * An admin's role and remove cells for one member. Nobody changes someone who holds more than
 * they do (an admin cannot touch an owner), so such rows show the role as text.
 */
export function MemberControls({
  workspaceId,
  myRole,
  member,
}: {
  workspaceId: string;
  myRole: Role;
  member: { userId: string; email: string; role: Role };
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.members.pathFilter()),
      queryClient.invalidateQueries(trpc.audit.pathFilter()),
      queryClient.invalidateQueries(trpc.me.pathFilter()),
    ]);
  const setRole = useMutation(trpc.members.setRole.mutationOptions({ onSettled: refresh }));
  const remove = useMutation(trpc.members.remove.mutationOptions({ onSettled: refresh }));

  if (!roleAtLeast(myRole, member.role)) {
    return (
      <>
        <TableCell>
          <Badge variant="secondary">{member.role}</Badge>
        </TableCell>
        <TableCell />
      </>
    );
  }
  return (
    <>
      <TableCell className="w-40">
        <Select
          aria-label={`Role of ${member.email}`}
          className="h-8"
          value={member.role}
          disabled={setRole.isPending}
          onChange={(event) => {
            const role = rolesUpTo(myRole).find((candidate) => candidate === event.target.value);
            if (role !== undefined) setRole.mutate({ workspaceId, userId: member.userId, role });
          }}
        >
          {rolesUpTo(myRole).map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </Select>
        <ErrorAlert error={setRole.error} className="mt-2" />
      </TableCell>
      <TableCell className="w-28">
        <Button
          type="button"
          variant="destructive-outline"
          size="sm"
          aria-label={`Remove ${member.email}`}
          disabled={remove.isPending}
          onClick={() => {
            if (
              window.confirm(
                `Remove ${member.email} from this workspace? Their tokens stop working.`,
              )
            )
              remove.mutate({ workspaceId, userId: member.userId });
          }}
        >
          Remove
        </Button>
        <ErrorAlert error={remove.error} className="mt-2" />
      </TableCell>
    </>
  );
}
