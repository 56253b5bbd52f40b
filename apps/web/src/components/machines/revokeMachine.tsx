"use client";

import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "@berth/ui/alert-dialog";
import { Button } from "@berth/ui/button";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../trpc/react.tsx";
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
    <AlertDialog
      open={open}
      onOpenChange={(next) => {
        if (!next) revoke.reset();
        setOpen(next);
      }}
    >
      <AlertDialogTrigger asChild>
        <Button size="sm" variant="destructive-outline" aria-label={`Revoke ${machine.name}`}>
          Revoke
        </Button>
      </AlertDialogTrigger>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Revoke {machine.name}?</AlertDialogTitle>
          <AlertDialogDescription>
            Berth stops accepting the machine&apos;s credential and ends its connection now; its
            agent stops. Nothing on the machine is touched. To use it again, enroll it again with a
            new code.
          </AlertDialogDescription>
        </AlertDialogHeader>
        <ErrorAlert error={revoke.error} prefix={`Could not revoke ${machine.name}`} />
        <AlertDialogFooter>
          <AlertDialogCancel>Cancel</AlertDialogCancel>
          <AlertDialogAction
            disabled={revoke.isPending}
            onClick={(event) => {
              // Closed on success only (above), not by Radix on the click.
              event.preventDefault();
              revoke.mutate({ workspaceId, machineId: machine.id });
            }}
          >
            {revoke.isPending ? "Revoking…" : "Revoke"}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
