"use client";

import type { RouterOutputs } from "@berth/api";
import { Button } from "@berth/ui/button";
import { TableCell, TableRow } from "@berth/ui/table";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { formatTime } from "../../lib/formatTime.ts";
import { timeAgo } from "../../lib/relativeTime.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { NameForm } from "../session/files/nameForm.tsx";
import { StateBadge } from "../stateBadge.tsx";
import { RevokeMachine } from "./revokeMachine.tsx";

/** One machine as `machines.listWorkspace` answers it. */
export type EnrolledMachine = RouterOutputs["machines"]["listWorkspace"][number];

/**
 * One enrolled machine. `now` is when the list was read (its query's time), so "last seen" is
 * the same in the server's render and the browser's first one, and moves on with each refetch.
 * With `admin`, the row's own actions: rename (in place), rotate its credential, revoke; a
 * revoked machine has none left.
 */
export function MachineRow({
  workspaceId,
  machine,
  now,
  admin,
}: {
  workspaceId: string;
  machine: EnrolledMachine;
  now: number;
  admin: boolean;
}) {
  const [renaming, setRenaming] = useState(false);
  const actions = useMachineActions(workspaceId);
  const { rename, rotate } = actions;
  const live = machine.state !== "revoked";
  return (
    <TableRow data-testid="machine-row" data-machine-id={machine.id}>
      <TableCell className="font-medium">
        {renaming ? (
          <NameForm
            label={`New name for ${machine.name}`}
            submit="Rename"
            initial={machine.name}
            pending={rename.isPending}
            error={<ErrorAlert error={rename.error} prefix={`Could not rename ${machine.name}`} />}
            onCancel={() => {
              rename.reset();
              setRenaming(false);
            }}
            onSubmit={(name) =>
              rename.mutate(
                { workspaceId, machineId: machine.id, name },
                { onSuccess: () => setRenaming(false) },
              )
            }
          />
        ) : (
          <span data-testid="machine-name">{machine.name}</span>
        )}
      </TableCell>
      <TableCell>
        <StateBadge state={machine.state} data-testid="machine-state" />
      </TableCell>
      <TableCell className="whitespace-nowrap text-muted-foreground">
        {machine.lastSeenAt === null ? (
          "never"
        ) : (
          <time dateTime={machine.lastSeenAt.toISOString()} title={formatTime(machine.lastSeenAt)}>
            {timeAgo(machine.lastSeenAt, now)}
          </time>
        )}
      </TableCell>
      <TableCell className="whitespace-nowrap">
        {machine.os}/{machine.arch}
      </TableCell>
      <TableCell>{machine.hasDisplay ? "yes" : "no"}</TableCell>
      <TableCell className="font-mono text-xs">{machine.boxdVersion}</TableCell>
      <TableCell className="whitespace-nowrap text-muted-foreground">
        {machine.revokedAt === null
          ? formatTime(machine.createdAt)
          : `revoked ${formatTime(machine.revokedAt)}`}
      </TableCell>
      {admin ? (
        <TableCell className="min-w-80">
          {/* A revoked machine has nothing left to do: enrolling again makes a new one. */}
          {live ? (
            <div className="flex justify-end gap-2">
              <Button
                type="button"
                size="sm"
                variant="outline"
                aria-label={`Rename ${machine.name}`}
                disabled={renaming}
                onClick={() => setRenaming(true)}
              >
                Rename
              </Button>
              <Button
                type="button"
                size="sm"
                variant="outline"
                aria-label={`Rotate the credential of ${machine.name}`}
                disabled={rotate.isPending}
                onClick={() => rotate.mutate({ workspaceId, machineId: machine.id })}
              >
                Rotate credential
              </Button>
              <RevokeMachine
                workspaceId={workspaceId}
                machine={machine}
                onSettled={actions.refresh}
              />
            </div>
          ) : null}
          <ErrorAlert
            error={rotate.error}
            prefix="Could not rotate the credential"
            className="mt-2"
          />
          {rotate.data === undefined ? null : (
            <p role="status" className="mt-2 text-right text-xs text-muted-foreground">
              {rotate.data.delivery === "sent"
                ? "Rotation sent: the agent is replacing its credential."
                : "The agent replaces its credential when it next connects."}
            </p>
          )}
        </TableCell>
      ) : null}
    </TableRow>
  );
}

/** The admin's mutations on a machine, each followed by a fresh list (and audit log). */
function useMachineActions(workspaceId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.machines.listWorkspace.queryFilter({ workspaceId })),
      // A session's machines list the workspace's unrevoked machines too.
      queryClient.invalidateQueries(trpc.machines.list.pathFilter()),
      queryClient.invalidateQueries(trpc.audit.pathFilter()),
    ]);
  return {
    refresh,
    rename: useMutation(trpc.machines.rename.mutationOptions({ onSettled: refresh })),
    rotate: useMutation(trpc.machines.rotateCredential.mutationOptions({ onSettled: refresh })),
  };
}
