"use client";

import { Button } from "@berth/ui/button";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../../trpc/react.tsx";
import { ErrorAlert } from "../../errorAlert.tsx";
import { LoadingRows } from "../../loadingRows.tsx";
import type { PanelProps } from "../workspacePanels.tsx";
import { BranchControls } from "./branchControls.tsx";
import { CommitForm } from "./commitForm.tsx";
import { CommitLog } from "./commitLog.tsx";
import { FilePreview } from "./filePreview.tsx";
import { hasStaged } from "./fileState.ts";
import { gitFailure, isNotARepository } from "./gitErrors.ts";
import { InitRepository } from "./initRepository.tsx";
import { StatusList } from "./statusList.tsx";
import { useGitWrites } from "./useGitWrites.ts";
import { WriteStatus } from "./writeStatus.tsx";

/**
 * The repository in the session's /workspace, through the box's git: what changed, each file's
 * diff, staging and committing, branches and the recent log. Every write says the workspace
 * generation it produced.
 */
export function GitPanel({ workspaceId, sessionId }: PanelProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const writes = useGitWrites({ workspaceId, sessionId });
  const status = useQuery(trpc.git.status.queryOptions(writes.scope));
  const [selected, setSelected] = useState<string | null>(null);
  // Agents and the terminal change the repository too; nothing tells this panel, so a person can.
  const refresh = () => void queryClient.invalidateQueries(trpc.git.pathFilter());

  const failure =
    writes.failure === null ? null : (
      <ErrorAlert error={gitFailure(writes.failure.error)} prefix={writes.failure.what} />
    );
  const header = (
    <div className="flex items-center justify-between gap-3">
      <WriteStatus note={writes.note} />
      <Button size="sm" variant="ghost" onClick={refresh} disabled={status.isFetching}>
        Refresh
      </Button>
    </div>
  );

  if (status.isPending)
    return <LoadingRows label="Loading the repository's status" columns={3} rows={3} />;
  if (status.isError)
    return (
      <div className="flex flex-col gap-3">
        {header}
        {failure}
        {isNotARepository(status.error) ? (
          <InitRepository writes={writes} />
        ) : (
          <ErrorAlert
            error={gitFailure(status.error)}
            prefix="Could not read the repository's status"
          />
        )}
      </div>
    );

  const { entries } = status.data;
  const entry = entries.find((candidate) => candidate.path === selected);
  return (
    <div className="flex flex-col gap-4">
      <BranchControls writes={writes} />
      {header}
      {failure}
      <div className="grid gap-4 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <div className="flex flex-col gap-4">
          <StatusList
            entries={entries}
            selected={entry === undefined ? null : entry.path}
            onSelect={setSelected}
            writes={writes}
          />
          <CommitForm writes={writes} stagedCount={entries.filter(hasStaged).length} />
        </div>
        <FilePreview scope={writes.scope} entry={entry} />
      </div>
      <CommitLog scope={writes.scope} />
    </div>
  );
}
