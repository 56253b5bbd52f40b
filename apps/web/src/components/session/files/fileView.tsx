"use client";

import { Alert, AlertDescription, AlertTitle } from "@berth/ui/alert";
import { Button } from "@berth/ui/button";
import { Skeleton } from "@berth/ui/skeleton";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "../../../trpc/react.tsx";
import { AlertIcon } from "../../icons.tsx";
import { BoxErrorAlert } from "./boxErrorAlert.tsx";
import { isVersionConflict } from "./boxErrors.ts";
import type { CodeEditor } from "./codeEditor.ts";
import { useAfterWrite, type FsScope } from "./fsScope.ts";
import { baseName, formatBytes, parentOf, shownPath } from "./paths.ts";
import { landedAt } from "../../../lib/landedAt.ts";

/** Larger files are downloaded, not shown: the whole text travels inside one tRPC answer. */
const largestShown = 1024 * 1024;

/**
 * One file: read-only at first, editable after Edit. Save writes with the version the file was
 * read at, so a change made meanwhile in the box (by an agent, a terminal) is reported as a
 * conflict rather than overwritten; Reload then shows the box's text in place of the edit.
 */
export function FileView({
  scope,
  path,
  size,
  onWrote,
}: {
  scope: FsScope;
  path: string;
  size: number;
  onWrote: (status: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const afterWrite = useAfterWrite(scope);
  const tooLarge = size > largestShown;
  const readInput = { ...scope, path };
  const read = useQuery({
    ...trpc.fs.read.queryOptions(readInput),
    enabled: !tooLarge,
    // A refetch must not swap the text under someone reading it; Reload asks explicitly.
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
  });
  const [editing, setEditing] = useState(false);
  const [conflict, setConflict] = useState(false);
  const container = useRef<HTMLDivElement>(null);
  const editor = useRef<CodeEditor | null>(null);
  const [mounted, setMounted] = useState(false);

  const content = read.data?.content;
  const binary = content?.includes("\u0000") === true;
  const showable = content !== undefined && !binary;

  useEffect(() => {
    const parent = container.current;
    if (!showable || parent === null) return;
    let cancelled = false;
    void import("./codeEditor.ts").then(({ createCodeEditor }) => {
      if (cancelled) return;
      editor.current = createCodeEditor(parent, {
        text: content,
        fileName: baseName(path),
        label: `Contents of ${shownPath(path)}`,
      });
      setMounted(true);
    });
    return () => {
      cancelled = true;
      editor.current?.destroy();
      editor.current = null;
      setMounted(false);
    };
    // Mounted once per file, not per text: later text arrives through setText below, which keeps
    // the editor's scroll position and undo history.
  }, [showable, path]);

  useEffect(() => {
    // Outside edit mode the editor shows what the box holds (after a save, a cancel, a reload).
    if (!editing && content !== undefined) editor.current?.setText(content);
  }, [content, editing, mounted]);

  useEffect(() => {
    editor.current?.setEditable(editing);
    if (editing) editor.current?.focus();
  }, [editing, mounted]);

  const save = useMutation(
    trpc.fs.write.mutationOptions({
      onSuccess: (written, input) => {
        queryClient.setQueryData(trpc.fs.read.queryKey(readInput), (before) =>
          before === undefined
            ? before
            : { ...before, content: input.content, version: written.version, size: written.size },
        );
        setEditing(false);
        onWrote(`Saved · ${landedAt(written)} · ${shownPath(path)}`);
        void afterWrite.refreshFolder(parentOf(path));
        void afterWrite.refreshMachines();
      },
      onError: (error) => {
        if (isVersionConflict(error)) setConflict(true);
      },
    }),
  );

  async function reload() {
    setConflict(false);
    save.reset();
    setEditing(false);
    await read.refetch();
  }

  if (tooLarge)
    return (
      <Alert variant="empty">
        <AlertTitle>
          {baseName(path)} is {formatBytes(size)}: too large to show here.
        </AlertTitle>
        <AlertDescription>Download it to open it on your computer.</AlertDescription>
      </Alert>
    );
  if (read.isPending)
    return (
      <div aria-busy="true" className="flex flex-col gap-2">
        <p className="text-xs text-muted-foreground">Reading {shownPath(path)}…</p>
        <Skeleton className="h-40 w-full" />
      </div>
    );
  if (read.isError)
    return (
      <div className="flex flex-col items-start gap-2">
        <BoxErrorAlert error={read.error} prefix={`Could not read ${shownPath(path)}`} />
        <Button variant="outline" size="sm" onClick={() => void read.refetch()}>
          Try again
        </Button>
      </div>
    );
  if (binary)
    return (
      <Alert variant="empty">
        <AlertTitle>{baseName(path)} is not text.</AlertTitle>
        <AlertDescription>Download it to open it with a program that reads it.</AlertDescription>
      </Alert>
    );

  return (
    <div className="flex min-w-0 flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        {editing ? (
          <>
            <Button
              size="sm"
              disabled={save.isPending}
              onClick={() => {
                const text = editor.current?.text();
                if (text === undefined) return;
                save.mutate({
                  ...readInput,
                  content: text,
                  expectedVersion: read.data.version,
                });
              }}
            >
              {save.isPending ? "Saving…" : "Save"}
            </Button>
            <Button
              size="sm"
              variant="outline"
              disabled={save.isPending}
              onClick={() => {
                save.reset();
                setConflict(false);
                setEditing(false);
              }}
            >
              Cancel
            </Button>
          </>
        ) : (
          <Button size="sm" variant="outline" disabled={!mounted} onClick={() => setEditing(true)}>
            Edit
          </Button>
        )}
        <span className="text-xs text-muted-foreground">
          {editing ? "Editing" : "Read-only"} · {formatBytes(read.data.size)}
        </span>
      </div>
      {conflict ? (
        <Alert role="alert" variant="warning">
          <AlertIcon />
          <AlertTitle>{shownPath(path)} changed in the box since you opened it.</AlertTitle>
          <AlertDescription>
            <p>
              Your edit was not saved, so nothing of theirs was overwritten. Reload to see the file
              as the box holds it now (your edit is discarded); copy anything you want to keep
              first.
            </p>
            <Button size="sm" variant="outline" className="mt-2" onClick={() => void reload()}>
              Reload
            </Button>
          </AlertDescription>
        </Alert>
      ) : (
        <BoxErrorAlert error={save.error} prefix={`Could not save ${shownPath(path)}`} />
      )}
      {mounted ? null : <Skeleton className="h-40 w-full" />}
      <div ref={container} className="min-w-0" />
    </div>
  );
}
