"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../../trpc/react.tsx";
import { landedAt } from "../../../lib/landedAt.ts";

/** The last write's outcome, as the panel's status line says it. */
export interface WriteNote {
  readonly text: string;
  /** Where it landed: the workspace generation it produced, or the machine (landedAt). */
  readonly landed: string;
}

/** The last write's failure: what was tried, and the error. */
export interface WriteFailure {
  readonly what: string;
  readonly error: unknown;
}

/**
 * The git panel's writes (stage, commit, switch or create a branch, run `git init`). Each answers
 * the workspace generation it produced, which the status line shows; after each one every git
 * query is stale, since one write can change status, diff, log and branches at once.
 */
export function useGitWrites(scope: { workspaceId: string; sessionId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [note, setNote] = useState<WriteNote | null>(null);
  const [failure, setFailure] = useState<WriteFailure | null>(null);
  const settled = (text: string, landed: string) => {
    setNote({ text, landed });
    setFailure(null);
    void queryClient.invalidateQueries(trpc.git.pathFilter());
  };
  // A failed write may still have changed something (a box that answered late, a half-made
  // branch): the queries are refetched either way.
  const failed = (what: string) => (error: unknown) => {
    setFailure({ what, error });
    void queryClient.invalidateQueries(trpc.git.pathFilter());
  };

  const add = useMutation(
    trpc.git.add.mutationOptions({
      onError: failed("Could not stage"),
      onSuccess: (result, input) =>
        settled(
          input.paths.length === 1
            ? `Staged ${input.paths[0] ?? ""}`
            : `Staged ${String(input.paths.length)} files`,
          landedAt(result),
        ),
    }),
  );
  const commit = useMutation(
    trpc.git.commit.mutationOptions({
      onError: failed("Could not commit"),
      onSuccess: (result) => settled(`Committed ${result.oid.slice(0, 7)}`, landedAt(result)),
    }),
  );
  const checkout = useMutation(
    trpc.git.checkout.mutationOptions({
      onError: failed("Could not switch branches"),
      onSuccess: (result, input) =>
        settled(
          `${input.create === true ? "Created and switched to" : "Switched to"} ${result.branch}`,
          landedAt(result),
        ),
    }),
  );
  const init = useMutation(
    trpc.exec.run.mutationOptions({
      onError: failed("Could not initialize the repository"),
      onSuccess: (result) => {
        settled(
          result.exitCode === 0
            ? "Initialized the repository"
            : `git init failed: ${result.stderr.trim() || `exit ${String(result.exitCode)}`}`,
          landedAt(result),
        );
      },
    }),
  );

  return {
    scope,
    note,
    failure,
    add,
    commit,
    checkout,
    init,
    /** Whether any write is on its way, so the others wait for it. */
    busy: add.isPending || commit.isPending || checkout.isPending || init.isPending,
  };
}

export type GitWrites = ReturnType<typeof useGitWrites>;
