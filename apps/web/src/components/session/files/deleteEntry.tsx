"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../../trpc/react.tsx";
import { ConfirmDestructive } from "../../confirmDestructive.tsx";
import { BoxErrorAlert } from "./boxErrorAlert.tsx";
import { useAfterWrite, type FsScope } from "./fsScope.ts";
import { parentOf, shownPath } from "./paths.ts";
import { landedAt } from "../../../lib/landedAt.ts";

/**
 * Delete, after a confirmation that names exactly what goes (a folder with everything in it).
 * The dialog stays open until the box answers, so a refusal is read where it was asked.
 */
export function DeleteEntry({
  scope,
  path,
  folder,
  onDeleted,
}: {
  scope: FsScope;
  path: string;
  folder: boolean;
  onDeleted: (path: string, status: string) => void;
}) {
  const trpc = useTRPC();
  const afterWrite = useAfterWrite(scope);
  const [open, setOpen] = useState(false);
  const remove = useMutation(
    trpc.fs.remove.mutationOptions({
      onSuccess: (result) => {
        setOpen(false);
        void afterWrite.refreshFolder(parentOf(path));
        void afterWrite.refreshMachines();
        onDeleted(path, `Deleted · ${landedAt(result)} · ${shownPath(path)}`);
      },
    }),
  );
  return (
    <ConfirmDestructive
      open={open}
      onOpenChange={(next) => {
        if (!next) remove.reset();
        setOpen(next);
      }}
      trigger={{ label: "Delete" }}
      title={`Delete ${shownPath(path)}?`}
      description={`${
        folder
          ? "The folder and everything in it are removed from the box's workspace."
          : "The file is removed from the box's workspace."
      } This cannot be undone here; an earlier archive revision may still hold it.`}
      error={<BoxErrorAlert error={remove.error} prefix={`Could not delete ${shownPath(path)}`} />}
      action={{ label: "Delete", pendingLabel: "Deleting…" }}
      pending={remove.isPending}
      onConfirm={() => remove.mutate({ ...scope, path, recursive: folder })}
    />
  );
}
