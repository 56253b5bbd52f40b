"use client";

import { useMutation } from "@tanstack/react-query";
import { useTRPC } from "../../../trpc/react.tsx";
import { BoxErrorAlert } from "./boxErrorAlert.tsx";
import { useAfterWrite, type FsScope } from "./fsScope.ts";
import { NameForm } from "./nameForm.tsx";
import { joinPath, shownPath } from "./paths.ts";
import { landedAt } from "../../../lib/landedAt.ts";

/**
 * A new empty file or folder in `folder`. A new file is written with `expectedVersion: null`,
 * so an existing file of that name is reported, never emptied.
 */
export function CreateEntry({
  scope,
  folder,
  kind,
  onCreated,
  onCancel,
}: {
  scope: FsScope;
  folder: string;
  kind: "file" | "dir";
  onCreated: (path: string, status: string) => void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const afterWrite = useAfterWrite(scope);
  const done = (path: string, landed: string) => {
    void afterWrite.refreshFolder(folder);
    void afterWrite.refreshMachines();
    onCreated(path, `Created · ${landed} · ${shownPath(path)}`);
  };
  const write = useMutation(
    trpc.fs.write.mutationOptions({ onSuccess: (result) => done(result.path, landedAt(result)) }),
  );
  const mkdir = useMutation(
    trpc.fs.mkdir.mutationOptions({ onSuccess: (result) => done(result.path, landedAt(result)) }),
  );
  const mutation = kind === "file" ? write : mkdir;
  const what = kind === "file" ? "file" : "folder";
  return (
    <NameForm
      label={`New ${what} in ${shownPath(folder)}`}
      submit={kind === "file" ? "Create file" : "Create folder"}
      pending={mutation.isPending}
      error={<BoxErrorAlert error={mutation.error} prefix={`Could not create the ${what}`} />}
      onCancel={onCancel}
      onSubmit={(name) => {
        const path = joinPath(folder, name);
        if (kind === "file") write.mutate({ ...scope, path, content: "", expectedVersion: null });
        else mkdir.mutate({ ...scope, path });
      }}
    />
  );
}
