"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../trpc/react.tsx";
import { ConfirmDestructive } from "../confirmDestructive.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import type { MachineView } from "./machineView.ts";

/**
 * An admin's hot-swap onto one machine of the table: the session's calls go there from now on,
 * and terminals open on the old target end. `expectedEpoch` is the session's activeEpoch as this
 * page last read it: if someone swapped meanwhile, the API refuses (CONFLICT) and the page
 * re-reads it, so the admin decides again knowing where the session is now.
 */
export function SwapHere({
  workspaceId,
  sessionId,
  machine,
  expectedEpoch,
}: {
  workspaceId: string;
  sessionId: string;
  machine: MachineView;
  expectedEpoch: number;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const scope = { workspaceId, sessionId };
  const swap = useMutation(
    trpc.admin.swap.mutationOptions({
      onSettled: async () => {
        await Promise.all([
          queryClient.invalidateQueries(trpc.sessions.get.queryFilter(scope)),
          queryClient.invalidateQueries(trpc.machines.list.queryFilter(scope)),
          queryClient.invalidateQueries(trpc.leases.timeline.pathFilter()),
        ]);
      },
      onSuccess: () => {
        setOpen(false);
      },
    }),
  );
  if (machine.active) return <span className="text-xs text-muted-foreground">active</span>;
  // The API refuses an offline machine too; the page says why before anyone asks.
  if (machine.kind !== "group" && machine.state !== "online")
    return <span className="text-xs text-muted-foreground">offline</span>;
  const target = machine.kind === "group" ? "group" : machine.sandboxId;
  const where = machine.kind === "group" ? "its group box" : `the machine ${machine.name}`;
  return (
    <ConfirmDestructive
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) swap.reset();
      }}
      trigger={{
        label: "Swap here",
        ariaLabel:
          machine.kind === "group"
            ? "Swap the session back to its group box"
            : `Swap the session to ${machine.name}`,
      }}
      title={`Move this session to ${where}?`}
      description={
        machine.kind === "group"
          ? "Its group box is woken first; from then on every file, git and terminal call runs there. Terminals open on the enrolled machine end."
          : "From now on every file, git and terminal call runs on that machine, and the group box is left to drain. Terminals open on the group box end. Berth never archives a machine's files."
      }
      error={<ErrorAlert error={swap.error} prefix="Could not swap the session" />}
      action={{ label: "Swap", pendingLabel: "Swapping…" }}
      pending={swap.isPending}
      onConfirm={() => {
        swap.mutate({ ...scope, target, expectedEpoch });
      }}
    />
  );
}
