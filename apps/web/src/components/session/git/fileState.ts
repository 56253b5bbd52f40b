import type { AppRouter } from "@berth/api";
import type { inferRouterOutputs } from "@trpc/server";

export type GitStatus = inferRouterOutputs<AppRouter>["git"]["status"];
export type StatusEntry = GitStatus["entries"][number];

/** Porcelain's status letters in words. */
const letters: Record<string, string> = {
  M: "modified",
  T: "type changed",
  A: "added",
  D: "deleted",
  R: "renamed",
  C: "copied",
  U: "unmerged",
};

/** What a changed file has: changes in the index, changes beside it, or neither yet. */
export interface FileState {
  readonly staged: string | null;
  readonly unstaged: string | null;
  readonly untracked: boolean;
  readonly conflicted: boolean;
}

export function fileState(entry: StatusEntry): FileState {
  if (entry.kind === "untracked")
    return { staged: null, unstaged: null, untracked: true, conflicted: false };
  const conflicted = entry.kind === "unmerged";
  return {
    staged: conflicted || entry.index === "." ? null : (letters[entry.index] ?? entry.index),
    unstaged:
      conflicted || entry.worktree === "." ? null : (letters[entry.worktree] ?? entry.worktree),
    untracked: false,
    conflicted,
  };
}

/** Whether `git add` would change the index for this file (resolving a conflict counts). */
export function canStage(entry: StatusEntry): boolean {
  const state = fileState(entry);
  return state.untracked || state.conflicted || state.unstaged !== null;
}

export function hasStaged(entry: StatusEntry): boolean {
  return fileState(entry).staged !== null;
}
