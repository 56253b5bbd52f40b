"use client";

import type { PanelProps } from "../workspacePanels.tsx";

/** Placeholder: replaced by the git panel. */
export function GitPanel({ sessionId }: PanelProps) {
  return <p className="text-sm text-muted-foreground">Git of {sessionId}</p>;
}
