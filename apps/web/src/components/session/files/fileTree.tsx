"use client";

import { Button } from "@berth/ui/button";
import { cn } from "@berth/ui/cn";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../../trpc/react.tsx";
import { EmptyState } from "../../emptyState.tsx";
import { BoxErrorAlert } from "./boxErrorAlert.tsx";
import type { FsScope } from "./fsScope.ts";
import { shownPath } from "./paths.ts";

/** The entry the panel works on: a file to open, or a folder to create and upload into. */
export interface Selection {
  readonly path: string;
  readonly type: "file" | "dir" | "symlink" | "other";
  readonly size: number;
}

interface TreeProps {
  readonly scope: FsScope;
  readonly expanded: ReadonlySet<string>;
  readonly selected: string | null;
  readonly onToggle: (path: string) => void;
  readonly onSelect: (entry: Selection) => void;
}

/**
 * The box's /workspace as a tree, listed lazily: a folder is listed when first expanded (one
 * `fs.list` per folder, cached), so a large workspace costs only what is looked at.
 */
export function FileTree(props: TreeProps) {
  return (
    <nav aria-label="Workspace files" className="min-w-0 text-sm">
      <Folder {...props} path="" depth={0} />
    </nav>
  );
}

const kindOrder = { dir: 0, file: 1, symlink: 1, other: 1 } as const;

function Folder({ path, depth, ...props }: TreeProps & { path: string; depth: number }) {
  const trpc = useTRPC();
  const { scope, expanded, selected, onToggle, onSelect } = props;
  const list = useQuery(trpc.fs.list.queryOptions({ ...scope, path }));
  const indent = { paddingLeft: `${String(depth * 0.75 + 0.25)}rem` };

  if (list.isPending)
    return (
      <p aria-busy="true" className="py-1 text-xs text-muted-foreground" style={indent}>
        {depth === 0 ? "Listing /workspace (a cold box starts first)…" : "Listing…"}
      </p>
    );
  if (list.isError)
    return (
      <div className="flex flex-col items-start gap-2 py-1" style={indent}>
        <BoxErrorAlert error={list.error} prefix={`Could not list ${shownPath(path)}`} />
        <Button variant="outline" size="sm" onClick={() => void list.refetch()}>
          Try again
        </Button>
      </div>
    );
  if (list.data.entries.length === 0)
    return depth === 0 ? (
      <EmptyState
        title="The workspace is empty."
        next="Create a file or a folder, or upload a file, with the buttons above."
      />
    ) : (
      <p className="py-1 text-xs text-muted-foreground italic" style={indent}>
        Empty folder
      </p>
    );

  const entries = list.data.entries.toSorted(
    (a, b) => kindOrder[a.type] - kindOrder[b.type] || a.name.localeCompare(b.name),
  );
  return (
    <ul className="flex flex-col">
      {entries.map((entry) => {
        const isDir = entry.type === "dir";
        const open = isDir && expanded.has(entry.path);
        return (
          <li key={entry.path}>
            <button
              type="button"
              aria-expanded={isDir ? open : undefined}
              aria-current={selected === entry.path ? "true" : undefined}
              data-path={entry.path}
              onClick={() => {
                if (isDir) onToggle(entry.path);
                onSelect({ path: entry.path, type: entry.type, size: entry.size });
              }}
              className={cn(
                "flex w-full items-center gap-1.5 rounded-md py-1 pr-2 text-left hover:bg-accent hover:text-accent-foreground",
                "outline-none focus-visible:ring-2 focus-visible:ring-ring",
                selected === entry.path && "bg-accent font-medium text-accent-foreground",
              )}
              style={indent}
            >
              <span aria-hidden="true" className="w-3 shrink-0 text-muted-foreground">
                {isDir ? (open ? "▾" : "▸") : ""}
              </span>
              <span className="truncate">{entry.name}</span>
              {isDir ? (
                <span className="sr-only"> (folder)</span>
              ) : entry.type === "symlink" ? (
                <span className="text-xs text-muted-foreground">→ {entry.target}</span>
              ) : null}
            </button>
            {open ? <Folder {...props} path={entry.path} depth={depth + 1} /> : null}
          </li>
        );
      })}
    </ul>
  );
}
