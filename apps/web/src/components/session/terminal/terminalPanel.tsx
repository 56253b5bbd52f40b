"use client";

import type { PanelProps } from "../workspacePanels.tsx";

/** Placeholder: replaced by the terminal panel. */
export function TerminalPanel({ sessionId }: PanelProps) {
  return <p className="text-sm text-muted-foreground">Terminal of {sessionId}</p>;
}
