"use client";

import { Button } from "@berth/ui/button";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@berth/ui/tabs";
import { useMutation } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "../../../trpc/react.tsx";
import { ErrorAlert } from "../../errorAlert.tsx";
import type { PanelProps } from "../workspacePanels.tsx";
import {
  readStoredTerminals,
  writeStoredTerminals,
  type StoredTerminal,
} from "./storedTerminals.ts";
import { terminalErrorText } from "./terminalErrors.ts";
import { TerminalView } from "./terminalView.tsx";

/**
 * The session's terminals in this tab: shells in the box, one tab each, every one kept mounted
 * so switching keeps its screen. The ids are remembered per session for this browser tab, so a
 * reload re-attaches them with their output; one the box no longer has is dropped with a note.
 * An open terminal keeps the box warm until it is closed or its shell exits.
 */
export function TerminalPanel({ workspaceId, sessionId }: PanelProps) {
  const trpc = useTRPC();
  // Unknown until read from this tab's storage, which only the browser has.
  const [terminals, setTerminals] = useState<readonly StoredTerminal[] | null>(null);
  const [active, setActive] = useState("");
  const [notes, setNotes] = useState<readonly string[]>([]);
  const open = useMutation(trpc.terminal.open.mutationOptions());

  useEffect(() => {
    setTerminals(readStoredTerminals(sessionId));
  }, [sessionId]);
  useEffect(() => {
    if (terminals !== null) writeStoredTerminals(sessionId, terminals);
  }, [sessionId, terminals]);

  const openTerminal = () => {
    open.mutate(
      { workspaceId, sessionId },
      {
        onSuccess: ({ id }) => {
          setTerminals((before) => {
            const list = before ?? [];
            const number = Math.max(0, ...list.map((terminal) => terminal.number)) + 1;
            return [...list, { id, number }];
          });
          setActive(id);
        },
      },
    );
  };
  const remove = (gone: StoredTerminal) => {
    setTerminals((before) => before?.filter((terminal) => terminal.id !== gone.id) ?? null);
  };
  // Its stream and its last keystroke or resize may both find it gone: one note.
  const dropped = useRef(new Set<string>());
  const dropGone = (gone: StoredTerminal) => {
    if (dropped.current.has(gone.id)) return;
    dropped.current.add(gone.id);
    remove(gone);
    setNotes((before) => [
      ...before,
      `Shell ${gone.number} is no longer in the box (it ended, or the box was replaced), so it was removed.`,
    ]);
  };

  if (terminals === null) return null;
  // A closed or dropped terminal's tab hands over to the first one left.
  const shown = terminals.some((terminal) => terminal.id === active)
    ? active
    : (terminals[0]?.id ?? "");
  return (
    <div className="flex flex-col gap-3">
      <Tabs value={shown} onValueChange={setActive}>
        <div className="flex flex-wrap items-center gap-2">
          {terminals.length === 0 ? (
            <p className="text-sm text-muted-foreground">
              No terminal open. A terminal is a shell in the box; it keeps the box warm until it is
              closed.
            </p>
          ) : (
            <TabsList aria-label="Terminals">
              {terminals.map((terminal) => (
                <TabsTrigger key={terminal.id} value={terminal.id}>
                  Shell {terminal.number}
                </TabsTrigger>
              ))}
            </TabsList>
          )}
          <Button
            variant="outline"
            size="sm"
            className="ml-auto"
            onClick={openTerminal}
            disabled={open.isPending}
          >
            New terminal
          </Button>
        </div>
        {notes.map((note) => (
          <p key={note} role="status" className="text-sm text-muted-foreground">
            {note}
          </p>
        ))}
        {open.error === null ? null : (
          <ErrorAlert error={terminalErrorText(open.error)} prefix="Could not open a terminal" />
        )}
        {terminals.map((terminal) => (
          <TabsContent
            key={terminal.id}
            value={terminal.id}
            forceMount
            className="data-[state=inactive]:hidden"
          >
            <TerminalView
              workspaceId={workspaceId}
              sessionId={sessionId}
              terminal={terminal}
              active={terminal.id === shown}
              onGone={dropGone}
              onClosed={remove}
            />
          </TabsContent>
        ))}
      </Tabs>
    </div>
  );
}
