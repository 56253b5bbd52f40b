"use client";

import { useSearchParams } from "next/navigation";
import { useDeferredValue, useMemo, useState, type ReactNode } from "react";
import { EmptyState } from "../emptyState.tsx";
import type { OverviewRow } from "./overviewRow.ts";
import { SessionFilter } from "./sessionFilter.tsx";
import { sessionMatches, type SessionFilterValue } from "./sessionMatch.ts";
import { SessionsTable } from "./sessionsTable.tsx";

/**
 * The overview's filter and the sessions it shows. The filter is kept in the URL (so a filtered
 * view can be shared) and read from it on the server's render too, so a shared link arrives
 * filtered. The rows follow a deferred copy of the filter: a keystroke updates the field at
 * once, and React filters and reconciles the rows after, interruptibly, so typing stays
 * responsive however many sessions there are. `children` stands in for the table when the
 * workspace has no sessions (or they could not be loaded).
 */
export function SessionsOverview({
  rows,
  workspaceId,
  children,
}: {
  rows: readonly OverviewRow[];
  workspaceId: string;
  children?: ReactNode;
}) {
  const params = useSearchParams();
  const [filter, setFilter] = useState<SessionFilterValue>(() => ({
    search: params.get("q") ?? "",
    state: params.get("state") ?? "",
  }));
  const deferred = useDeferredValue(filter);
  const shown = useMemo(
    () => rows.filter((row) => sessionMatches(row, deferred)),
    [rows, deferred],
  );

  return (
    <>
      <SessionFilter
        value={filter}
        onChange={(change) => {
          setFilter((current) => ({ ...current, ...change }));
          if (change.search !== undefined) setParam("q", change.search);
          if (change.state !== undefined) setParam("state", change.state);
        }}
      />
      {rows.length === 0 ? (
        children
      ) : shown.length === 0 ? (
        <EmptyState
          title="No session matches the filter."
          next="Clear the search or choose another state."
        />
      ) : (
        <SessionsTable rows={shown} workspaceId={workspaceId} />
      )}
    </>
  );
}

/**
 * Replace, not push, so typing does not flood the history; through history, so the server is
 * not asked to render the page again.
 */
function setParam(name: string, value: string): void {
  const next = new URLSearchParams(window.location.search);
  if (value === "") next.delete(name);
  else next.set(name, value);
  window.history.replaceState(null, "", `${window.location.pathname}?${next.toString()}`);
}
