"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../trpc/react.tsx";
import { ConfirmDestructive } from "../confirmDestructive.tsx";
import { ErrorAlert } from "../errorAlert.tsx";

/**
 * Revoke, after a confirmation that says what it does and what it does not. The dialog stays
 * open until the API answers, so a refusal is read where it was asked.
 */
export function RevokeMachine({
  workspaceId,
  machine,
  onSettled,
}: {
  workspaceId: string;
  machine: { id: string; name: string };
  onSettled: () => Promise<unknown>;
}) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const revoke = useMutation(
    trpc.machines.revoke.mutationOptions({
      onSuccess: () => setOpen(false),
      onSettled,
    }),
  );
  return (
    <ConfirmDestructive
      open={open}
      onOpenChange={(next) => {
        if (!next) revoke.reset();
        setOpen(next);
      }}
      trigger={{ label: "Revoke", ariaLabel: `Revoke ${machine.name}` }}
      title={`Revoke ${machine.name}?`}
      description="Berth stops accepting the machine's credential and ends its connection now; its agent stops. Nothing on the machine is touched. To use it again, enroll it again with a new code."
      error={<ErrorAlert error={revoke.error} prefix={`Could not revoke ${machine.name}`} />}
      action={{ label: "Revoke", pendingLabel: "Revoking…" }}
      pending={revoke.isPending}
      onConfirm={() => revoke.mutate({ workspaceId, machineId: machine.id })}
    />
  );
}
