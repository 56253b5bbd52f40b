"use client";

import "@xterm/xterm/css/xterm.css";
import { Button } from "@berth/ui/button";
import { useMutation } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "../../../trpc/react.tsx";
import { ErrorAlert } from "../../errorAlert.tsx";
import type { StoredTerminal } from "./storedTerminals.ts";
import { isTerminalGone, terminalErrorText } from "./terminalErrors.ts";
import { TerminalInputQueue, type TerminalInput } from "./terminalInputQueue.ts";
import { exitText, movedText, TerminalStateBadge, type TerminalState } from "./terminalState.tsx";
import { XtermScreen } from "./xtermScreen.ts";

export interface TerminalViewProps {
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly terminal: StoredTerminal;
  /** Its tab is the one shown: it takes the keyboard. */
  readonly active: boolean;
  /** The box has no such terminal any more (it ended, or the box was replaced). */
  readonly onGone: (terminal: StoredTerminal) => void;
  readonly onClosed: (terminal: StoredTerminal) => void;
}

/** A pause before resuming a stream that ended early, so a failing server is not hammered. */
const RESUME_DELAY_MS = 1000;

/** How the stream ended by itself: the shell exited, or a swap closed it where it ran. */
type Finish = Extract<TerminalState, { kind: "exited" | "moved" }>;

/**
 * One remote terminal: its output stream drawn by xterm, keystrokes and sizes sent back in
 * order. The stream starts from the box's replay buffer, so a terminal re-attached after a
 * reload shows its earlier output again; output chunks are numbered, and one already drawn is
 * never drawn twice, whichever way the stream was resumed.
 */
export function TerminalView({
  workspaceId,
  sessionId,
  terminal,
  active,
  onGone,
  onClosed,
}: TerminalViewProps) {
  const trpc = useTRPC();
  const target = { workspaceId, sessionId, id: terminal.id };
  const [inputError, setInputError] = useState<unknown>(null);
  const write = useMutation(trpc.terminal.write.mutationOptions());
  const resize = useMutation(trpc.terminal.resize.mutationOptions());
  const close = useMutation(trpc.terminal.close.mutationOptions());
  const sendRef = useRef<(input: TerminalInput) => Promise<unknown>>(() => Promise.resolve());
  sendRef.current = async (input) => {
    if (input.kind === "keys") await write.mutateAsync({ ...target, data: input.data });
    else await resize.mutateAsync({ ...target, cols: input.cols, rows: input.rows });
    setInputError(null);
  };
  const failedRef = useRef<(error: unknown) => void>(() => undefined);
  failedRef.current = (error) => {
    // Closed elsewhere: the box ends no stream for that, but refuses the next keystroke.
    if (isTerminalGone(error)) onGone(terminal);
    else setInputError(error);
  };
  const [queue] = useState(
    () =>
      new TerminalInputQueue(
        (input) => sendRef.current(input),
        (error) => {
          failedRef.current(error);
        },
      ),
  );
  const [screen] = useState(
    () =>
      new XtermScreen({
        keys: (data) => {
          queue.keys(data);
        },
        resized: (cols, rows) => {
          queue.resize(cols, rows);
        },
      }),
  );

  const lastSeq = useRef(0);
  const exited = useRef(false);
  const [exit, setExit] = useState<Finish | null>(null);
  // Where a Reconnect resumes; the link itself resumes its own retries from the last event.
  const [resumeFrom, setResumeFrom] = useState<string | null>(null);
  const output = useSubscription(
    trpc.terminal.output.subscriptionOptions(
      { ...target, lastEventId: resumeFrom },
      {
        onData: ({ data: event }) => {
          switch (event.type) {
            case "output":
              if (event.seq <= lastSeq.current) return;
              lastSeq.current = event.seq;
              screen.write(event.data, { cols: event.cols, rows: event.rows });
              return;
            case "gap":
              lastSeq.current = Math.max(lastSeq.current, event.toSeq);
              screen.note("some earlier output is gone (the box keeps the last 1 MiB)");
              return;
            case "exit":
              // A resumed stream may end with the same exit again.
              if (exited.current) return;
              exited.current = true;
              screen.note(exitText(event.exitCode, event.signal));
              setExit({ kind: "exited", exitCode: event.exitCode, signal: event.signal });
              return;
            case "route_moved":
              if (exited.current) return;
              exited.current = true;
              screen.note(`${movedText(event.routedTo)}: this terminal was closed where it ran`);
              setExit({ kind: "moved", routedTo: event.routedTo });
              return;
          }
        },
        onError: (error) => {
          if (isTerminalGone(error)) onGone(terminal);
        },
      },
    ),
  );

  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (element === null) return;
    return screen.show(element);
  }, [screen]);
  useEffect(() => {
    if (active) screen.focus();
  }, [active, screen]);

  // The stream only ends by itself after the exit; ending before it (the box dropped a reader
  // too far behind, or the server went away) means resuming where it stopped.
  const ended = output.status === "idle" && exit === null;
  const state: TerminalState =
    exit !== null
      ? exit
      : output.status === "error"
        ? { kind: "failed" }
        : output.status === "pending"
          ? { kind: "live" }
          : ended || output.error !== null
            ? { kind: "lost" }
            : { kind: "connecting" };

  const reconnect = () => {
    if (exited.current) return;
    const from = lastSeq.current === 0 ? null : String(lastSeq.current);
    if (from === resumeFrom) output.reset();
    else setResumeFrom(from);
  };
  useEffect(() => {
    if (!ended) return;
    const timer = setTimeout(reconnect, RESUME_DELAY_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [ended]);
  const closeTerminal = () => {
    close.mutate(target, {
      onSuccess: () => {
        onClosed(terminal);
      },
      onError: (error) => {
        if (isTerminalGone(error)) onClosed(terminal);
      },
    });
  };

  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <TerminalStateBadge state={state} />
        {state.kind === "lost" ? (
          <span className="text-muted-foreground">Retrying by itself; Reconnect tries now.</span>
        ) : null}
        <div className="ml-auto flex gap-2">
          {state.kind === "lost" || state.kind === "failed" ? (
            <Button variant="outline" size="sm" onClick={reconnect}>
              Reconnect
            </Button>
          ) : null}
          <Button
            variant="destructive-outline"
            size="sm"
            onClick={closeTerminal}
            disabled={close.isPending}
          >
            Close terminal
          </Button>
        </div>
      </div>
      {output.status === "error" ? (
        <ErrorAlert
          error={terminalErrorText(output.error)}
          prefix="The terminal's output stopped"
        />
      ) : null}
      {inputError === null ? null : (
        <ErrorAlert error={terminalErrorText(inputError)} prefix="Keystrokes were not delivered" />
      )}
      {close.error === null || isTerminalGone(close.error) ? null : (
        <ErrorAlert error={terminalErrorText(close.error)} prefix="Could not close the terminal" />
      )}
      <div className="rounded-md border bg-card p-2">
        <div ref={container} className="h-80 overflow-hidden" data-testid="terminal-screen" />
      </div>
    </div>
  );
}
