"use client";

import type { PanelProps } from "../workspacePanels.tsx";

/** Placeholder: replaced by the files panel. */
export function FilesPanel({ sessionId }: PanelProps) {
  return <p className="text-sm text-muted-foreground">Files of {sessionId}</p>;
}
