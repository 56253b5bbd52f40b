import { Badge } from "@berth/ui/badge";
import { Button } from "@berth/ui/button";
import { cn } from "@berth/ui/cn";
import { EmptyState } from "../../emptyState.tsx";
import { canStage, fileState, type StatusEntry } from "./fileState.ts";
import type { GitWrites } from "./useGitWrites.ts";

/**
 * The changed files, each with what it has staged, unstaged or untracked; choosing one shows
 * its diff. Stage buttons name their file, so each is found (and read out) on its own.
 */
export function StatusList({
  entries,
  selected,
  onSelect,
  writes,
}: {
  entries: readonly StatusEntry[];
  selected: string | null;
  onSelect: (path: string) => void;
  writes: GitWrites;
}) {
  const stageable = entries.filter(canStage).map((entry) => entry.path);
  const stage = (paths: string[]) => writes.add.mutate({ ...writes.scope, paths });
  if (entries.length === 0)
    return (
      <EmptyState
        title="Nothing to commit: the working tree is clean"
        next="Change a file (in the Files tab, the terminal or by an agent) and refresh to see it here."
      />
    );
  return (
    <div className="flex flex-col gap-2">
      <div className="flex items-center justify-between gap-2">
        <h3 className="text-sm font-medium">Changes ({entries.length})</h3>
        <Button
          size="sm"
          variant="outline"
          disabled={stageable.length === 0 || writes.busy}
          onClick={() => stage(stageable)}
        >
          Stage all
        </Button>
      </div>
      <ul aria-label="Changed files" className="flex flex-col rounded-md border border-border">
        {entries.map((entry) => {
          const state = fileState(entry);
          return (
            <li
              key={entry.path}
              data-testid="git-file"
              className={cn(
                "flex items-center gap-2 border-b border-border px-2 py-1.5 last:border-b-0",
                selected === entry.path && "bg-accent",
              )}
            >
              <button
                type="button"
                aria-pressed={selected === entry.path}
                className="min-w-0 flex-1 cursor-pointer truncate text-left font-mono text-xs hover:underline"
                title={
                  entry.origPath === undefined ? entry.path : `${entry.origPath} → ${entry.path}`
                }
                onClick={() => onSelect(entry.path)}
              >
                {entry.path}
              </button>
              {state.conflicted ? <Badge variant="destructive">conflict</Badge> : null}
              {state.staged === null ? null : (
                <Badge variant="success">staged · {state.staged}</Badge>
              )}
              {state.unstaged === null ? null : (
                <Badge variant="warning">unstaged · {state.unstaged}</Badge>
              )}
              {state.untracked ? <Badge variant="outline">untracked</Badge> : null}
              {canStage(entry) ? (
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={`Stage ${entry.path}`}
                  disabled={writes.busy}
                  onClick={() => stage([entry.path])}
                >
                  Stage
                </Button>
              ) : null}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
