"use client";

import { Tabs, TabsContent, TabsList, TabsTrigger } from "@berth/ui/tabs";
import dynamic from "next/dynamic";
import { useState, type ReactNode } from "react";
import { Section } from "../section.tsx";

function PanelLoading() {
  return (
    <p role="status" className="text-sm text-muted-foreground">
      Loading the tool…
    </p>
  );
}

// Loaded when first opened: an editor, a terminal emulator and their helpers are most of the
// page's script, and a page that only shows the machines and the timeline needs none of it.
const FilesPanel = dynamic(
  () => import("./files/filesPanel.tsx").then((module) => module.FilesPanel),
  { loading: PanelLoading },
);
const GitPanel = dynamic(() => import("./git/gitPanel.tsx").then((module) => module.GitPanel), {
  loading: PanelLoading,
});
const TerminalPanel = dynamic(
  () => import("./terminal/terminalPanel.tsx").then((module) => module.TerminalPanel),
  { loading: PanelLoading },
);

/** Where a session's box is for, in one place: what the box services offer a person. */
export interface PanelProps {
  readonly workspaceId: string;
  readonly sessionId: string;
}

const tools = [
  { value: "files", label: "Files", Panel: FilesPanel },
  { value: "git", label: "Git", Panel: GitPanel },
  { value: "terminal", label: "Terminal", Panel: TerminalPanel },
] as const;

/**
 * Work inside the session's box: its files, its git repository and terminals, through the same
 * box services agents use. No tab is open at first, because a panel's first call wakes a cold
 * box and an open page must not; a panel mounts when first opened and then stays mounted, so
 * switching tabs keeps an editor's text and a terminal's scrollback.
 */
export function WorkspacePanels(props: PanelProps) {
  const [tab, setTab] = useState("");
  const [opened, setOpened] = useState<ReadonlySet<string>>(new Set());
  const open = (value: string) => {
    setTab(value);
    setOpened((before) => new Set(before).add(value));
  };
  return (
    <Section
      title="Workspace"
      description="The files, git repository and terminals of the session's box. Opening a tool wakes a cold box."
    >
      <Tabs value={tab} onValueChange={open}>
        <TabsList aria-label="Workspace tools">
          {tools.map(({ value, label }) => (
            <TabsTrigger key={value} value={value}>
              {label}
            </TabsTrigger>
          ))}
        </TabsList>
        {tools.map(({ value, Panel }): ReactNode =>
          opened.has(value) ? (
            <TabsContent
              key={value}
              value={value}
              forceMount
              className="data-[state=inactive]:hidden"
            >
              <Panel {...props} />
            </TabsContent>
          ) : null,
        )}
      </Tabs>
      {tab === "" ? (
        <p className="text-sm text-muted-foreground">
          Choose a tool to work in the box. The box starts if it is cold.
        </p>
      ) : null}
    </Section>
  );
}
