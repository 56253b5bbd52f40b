import { Skeleton } from "@berth/ui/skeleton";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../../trpc/react.tsx";
import { EmptyState } from "../../emptyState.tsx";
import { ErrorAlert } from "../../errorAlert.tsx";
import { DiffView } from "./diffView.tsx";
import { fileState, type StatusEntry } from "./fileState.ts";
import { gitFailure } from "./gitErrors.ts";

type Scope = { workspaceId: string; sessionId: string };

/**
 * The chosen file's changes: what is staged and what is not yet, each as its own diff, since
 * git keeps them apart and a commit takes only the first.
 */
export function FilePreview({ scope, entry }: { scope: Scope; entry: StatusEntry | undefined }) {
  if (entry === undefined)
    return (
      <EmptyState
        title="No file chosen"
        next="Choose a changed file on the left to see its diff."
      />
    );
  const state = fileState(entry);
  if (state.untracked)
    return (
      <EmptyState
        title={`${entry.path} is untracked`}
        next="Git has no diff for a file it does not track yet: stage it to see its content as added lines."
      />
    );
  return (
    <div className="flex flex-col gap-3" aria-label={`Diff of ${entry.path}`} role="region">
      {state.staged === null ? null : (
        <FileDiff
          scope={scope}
          path={entry.path}
          staged
          label={`Staged changes of ${entry.path}`}
        />
      )}
      {state.unstaged === null && !state.conflicted ? null : (
        <FileDiff
          scope={scope}
          path={entry.path}
          staged={false}
          label={`Unstaged changes of ${entry.path}`}
        />
      )}
    </div>
  );
}

function FileDiff({
  scope,
  path,
  staged,
  label,
}: {
  scope: Scope;
  path: string;
  staged: boolean;
  label: string;
}) {
  const trpc = useTRPC();
  const diff = useQuery(trpc.git.diff.queryOptions({ ...scope, staged, paths: [path] }));
  if (diff.isPending)
    return (
      <div aria-busy="true" className="flex flex-col gap-1.5">
        <span className="sr-only">Loading the diff of {path}</span>
        <Skeleton className="h-4 w-1/3" />
        <Skeleton className="h-24 w-full" />
      </div>
    );
  if (diff.isError)
    return (
      <ErrorAlert error={gitFailure(diff.error)} prefix={`Could not load the diff of ${path}`} />
    );
  if (diff.data.text === "")
    return (
      <p className="text-sm text-muted-foreground">
        {label}: none (only the file&apos;s mode or nothing git compares by content changed).
      </p>
    );
  return <DiffView text={diff.data.text} truncated={diff.data.truncated} label={label} />;
}
