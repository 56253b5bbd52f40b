"use client";

import { Button, buttonVariants } from "@berth/ui/button";
import { cn } from "@berth/ui/cn";
import { useMemo, useState } from "react";
import type { PanelProps } from "../workspacePanels.tsx";
import { BoxErrorAlert } from "./boxErrorAlert.tsx";
import { CreateEntry } from "./createEntry.tsx";
import { DeleteEntry } from "./deleteEntry.tsx";
import { FileTree, type Selection } from "./fileTree.tsx";
import { FileView } from "./fileView.tsx";
import { useAfterWrite } from "./fsScope.ts";
import { baseName, formatBytes, isWithin, joinPath, parentOf, shownPath } from "./paths.ts";
import { RenameEntry } from "./renameEntry.tsx";
import { TransferProgress, type Transfer } from "./transferProgress.tsx";
import { landedAt } from "../../../lib/landedAt.ts";
import { downloadFile, saveBlob, uploadFile } from "./transfers.ts";

type Form = "file" | "dir" | "rename" | null;

/**
 * The box's /workspace: a tree to browse, a file to read and edit, and create, rename, delete,
 * upload and download. Every write says which workspace generation it produced, the number
 * the machines table shows, so a person can tell which state an archive holds.
 */
export function FilesPanel({ workspaceId, sessionId }: PanelProps) {
  const scope = useMemo(() => ({ workspaceId, sessionId }), [workspaceId, sessionId]);
  const afterWrite = useAfterWrite(scope);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [selected, setSelected] = useState<Selection | null>(null);
  const [form, setForm] = useState<Form>(null);
  const [status, setStatus] = useState("");
  const [transfer, setTransfer] = useState<Transfer | null>(null);
  const [transferError, setTransferError] = useState<{ error: unknown; what: string } | null>(null);

  // New entries and uploads go where the person is looking: the selected folder, or the
  // folder of the selected file.
  const folder =
    selected === null ? "" : selected.type === "dir" ? selected.path : parentOf(selected.path);
  const expand = (path: string) => setExpanded((before) => new Set(before).add(path));
  const toggle = (path: string) =>
    setExpanded((before) => {
      const next = new Set(before);
      if (!next.delete(path)) next.add(path);
      return next;
    });
  const select = (entry: Selection | null) => {
    setSelected(entry);
    setForm((open) => (open === "rename" ? null : open));
  };
  const transferring = transfer !== null && !transfer.done;

  async function upload(file: File) {
    const target = folder;
    const path = joinPath(target, file.name);
    setTransferError(null);
    setTransfer({ direction: "upload", name: file.name, loaded: 0, total: file.size, done: false });
    try {
      const uploaded = await uploadFile(scope, {
        path,
        file,
        onProgress: (loaded, total) =>
          setTransfer({ direction: "upload", name: file.name, loaded, total, done: false }),
      });
      setTransfer({
        direction: "upload",
        name: file.name,
        loaded: uploaded.size,
        total: uploaded.size,
        done: true,
      });
      setStatus(
        `Uploaded · ${landedAt(uploaded)} · ${shownPath(uploaded.path)} · ${formatBytes(uploaded.size)}, selected in the tree`,
      );
      if (target !== "") expand(target);
      await afterWrite.refreshFolder(target);
      void afterWrite.refreshMachines();
      select({ path: uploaded.path, type: "file", size: uploaded.size });
    } catch (error) {
      setTransfer(null);
      setTransferError({ error, what: `Could not upload ${file.name} to ${shownPath(target)}` });
    }
  }

  async function download(path: string) {
    const name = baseName(path);
    setTransferError(null);
    setTransfer({ direction: "download", name, loaded: 0, total: null, done: false });
    try {
      const blob = await downloadFile(scope, {
        path,
        onProgress: (loaded, total) =>
          setTransfer({ direction: "download", name, loaded, total, done: false }),
      });
      setTransfer({ direction: "download", name, loaded: blob.size, total: blob.size, done: true });
      saveBlob(blob, name);
    } catch (error) {
      setTransfer(null);
      setTransferError({ error, what: `Could not download ${shownPath(path)}` });
    }
  }

  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center gap-2">
        <Button size="sm" variant="outline" onClick={() => setForm("file")}>
          New file
        </Button>
        <Button size="sm" variant="outline" onClick={() => setForm("dir")}>
          New folder
        </Button>
        <label
          className={cn(
            buttonVariants({ variant: "outline", size: "sm" }),
            "focus-within:ring-2 focus-within:ring-ring",
            transferring && "pointer-events-none opacity-50",
          )}
        >
          Upload a file
          <input
            type="file"
            className="sr-only"
            disabled={transferring}
            onChange={(event) => {
              const file = event.target.files?.[0];
              // Cleared, so choosing the same file again is a new upload.
              event.target.value = "";
              if (file !== undefined) void upload(file);
            }}
          />
        </label>
        <span className="text-xs text-muted-foreground">
          New files, folders and uploads go in <code>{shownPath(folder)}</code>
        </span>
      </div>

      {form === "file" || form === "dir" ? (
        <CreateEntry
          key={`${form}:${folder}`}
          scope={scope}
          folder={folder}
          kind={form}
          onCancel={() => setForm(null)}
          onCreated={(path, message) => {
            setForm(null);
            setStatus(message);
            if (folder !== "") expand(folder);
            select({ path, type: form, size: 0 });
          }}
        />
      ) : null}

      {transfer === null ? null : <TransferProgress transfer={transfer} />}
      {transferError === null ? null : (
        <BoxErrorAlert error={transferError.error} prefix={transferError.what} />
      )}
      <p role="status" data-testid="files-status" className="min-h-5 text-sm font-medium">
        {status}
      </p>

      <div className="grid gap-4 md:grid-cols-[minmax(12rem,18rem)_minmax(0,1fr)]">
        <div className="max-h-[36rem] overflow-auto rounded-lg border border-border p-1">
          <FileTree
            scope={scope}
            expanded={expanded}
            selected={selected?.path ?? null}
            onToggle={toggle}
            onSelect={select}
          />
        </div>
        <div className="flex min-w-0 flex-col gap-3">
          {selected === null ? (
            <p className="text-sm text-muted-foreground">
              Choose a file in the tree to read it; Edit makes it writable. Choose a folder to
              create or upload into it.
            </p>
          ) : (
            <>
              <div className="flex flex-wrap items-center gap-2">
                <h3 className="mr-auto min-w-0 truncate font-mono text-sm font-medium">
                  {shownPath(selected.path)}
                </h3>
                {selected.type === "dir" ? null : (
                  <Button
                    size="sm"
                    variant="outline"
                    disabled={transferring}
                    onClick={() => void download(selected.path)}
                  >
                    Download
                  </Button>
                )}
                <Button size="sm" variant="outline" onClick={() => setForm("rename")}>
                  Rename
                </Button>
                <DeleteEntry
                  key={selected.path}
                  scope={scope}
                  path={selected.path}
                  folder={selected.type === "dir"}
                  onDeleted={(path, message) => {
                    setStatus(message);
                    if (isWithin(selected.path, path)) select(null);
                  }}
                />
              </div>
              {form === "rename" ? (
                <RenameEntry
                  key={selected.path}
                  scope={scope}
                  path={selected.path}
                  onCancel={() => setForm(null)}
                  onRenamed={(to, message) => {
                    setForm(null);
                    setStatus(message);
                    select({ ...selected, path: to });
                  }}
                />
              ) : null}
              {selected.type === "dir" ? (
                <p className="text-sm text-muted-foreground">
                  A folder: expand it in the tree to see what it holds.
                </p>
              ) : (
                <FileView
                  key={selected.path}
                  scope={scope}
                  path={selected.path}
                  size={selected.size}
                  onWrote={setStatus}
                />
              )}
            </>
          )}
        </div>
      </div>
    </div>
  );
}
