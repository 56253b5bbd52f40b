import { useQuery } from "@tanstack/react-query";
import { formatTime } from "../../../lib/formatTime.ts";
import { useTRPC } from "../../../trpc/react.tsx";
import { EmptyState } from "../../emptyState.tsx";
import { ErrorAlert } from "../../errorAlert.tsx";
import { LoadingRows } from "../../loadingRows.tsx";
import { gitFailure } from "./gitErrors.ts";

/** How many commits the log shows: the recent history a review needs, not all of it. */
const RECENT = 20;

/** The current branch's recent commits, newest first. */
export function CommitLog({ scope }: { scope: { workspaceId: string; sessionId: string } }) {
  const trpc = useTRPC();
  const log = useQuery(trpc.git.log.queryOptions({ ...scope, maxCount: RECENT }));
  return (
    <div className="flex flex-col gap-2">
      <h3 className="text-sm font-medium">Recent commits</h3>
      {log.isPending ? (
        <LoadingRows label="Loading recent commits" columns={3} rows={2} />
      ) : log.isError ? (
        <ErrorAlert error={gitFailure(log.error)} prefix="Could not load the log" />
      ) : log.data.commits.length === 0 ? (
        <EmptyState
          title="No commits yet"
          next="Stage the files to keep and commit them: the first commit starts the history."
        />
      ) : (
        <ol aria-label="Recent commits" className="flex flex-col rounded-md border border-border">
          {log.data.commits.map((commit) => (
            <li
              key={commit.oid}
              data-testid="git-commit"
              className="flex flex-wrap items-baseline gap-x-3 gap-y-0.5 border-b border-border px-3 py-2 text-sm last:border-b-0"
            >
              <code className="text-xs text-muted-foreground" title={commit.oid}>
                {commit.oid.slice(0, 7)}
              </code>
              <span className="min-w-0 flex-1 truncate font-medium">{commit.subject}</span>
              <span className="text-xs text-muted-foreground" title={commit.authorEmail}>
                {commit.authorName}
              </span>
              <time className="text-xs text-muted-foreground" dateTime={commit.authoredAt}>
                {formatTime(new Date(commit.authoredAt))}
              </time>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
