"use client";

import { useMutation } from "@tanstack/react-query";
import { useTRPC } from "../../../trpc/react.tsx";
import { BoxErrorAlert } from "./boxErrorAlert.tsx";
import { useAfterWrite, type FsScope } from "./fsScope.ts";
import { NameForm } from "./nameForm.tsx";
import { baseName, joinPath, parentOf, shownPath } from "./paths.ts";
import { landedAt } from "../../../lib/landedAt.ts";

/** A new name in the same folder (fs.move without overwrite: an existing name is refused). */
export function RenameEntry({
  scope,
  path,
  onRenamed,
  onCancel,
}: {
  scope: FsScope;
  path: string;
  onRenamed: (to: string, status: string) => void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const afterWrite = useAfterWrite(scope);
  const folder = parentOf(path);
  const move = useMutation(
    trpc.fs.move.mutationOptions({
      onSuccess: (result) => {
        void afterWrite.refreshFolder(parentOf(result.from));
        void afterWrite.refreshFolder(parentOf(result.to));
        void afterWrite.refreshMachines();
        onRenamed(result.to, `Renamed · ${landedAt(result)} · ${shownPath(result.to)}`);
      },
    }),
  );
  return (
    <NameForm
      label={`New name for ${shownPath(path)}`}
      submit="Rename"
      initial={baseName(path)}
      pending={move.isPending}
      error={<BoxErrorAlert error={move.error} prefix={`Could not rename ${shownPath(path)}`} />}
      onCancel={onCancel}
      onSubmit={(name) => move.mutate({ ...scope, from: path, to: joinPath(folder, name) })}
    />
  );
}
