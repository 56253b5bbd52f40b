"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { formatTime } from "../../lib/formatTime.ts";
import { formText } from "../../lib/formText.ts";
import { submitHandler } from "../../lib/submitHandler.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { QueryTable } from "../queryTable.tsx";
import { Section } from "../section.tsx";

const states = ["cold", "warming", "warm", "draining"] as const;

/**
 * The workspace's agent sessions with their box's state, counts by state, a search and a state
 * filter kept in the URL (so a filtered view can be shared), and a form to start one. Two
 * queries whatever the number of sessions: the sessions, and every session's machines.
 */
export function SessionsSection({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const [search, setSearch] = useState(() => params.get("q") ?? "");
  const stateFilter = params.get("state") ?? "";
  const sessions = useQuery(trpc.sessions.list.queryOptions({ workspaceId }));
  const machines = useQuery(trpc.machines.list.queryOptions({ workspaceId }));
  const create = useMutation(
    trpc.sessions.create.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries(trpc.sessions.pathFilter());
        void queryClient.invalidateQueries(trpc.machines.pathFilter());
      },
    }),
  );

  const boxOf = new Map(
    (machines.data ?? []).filter((m) => m.isSessionGroup).map((m) => [m.sessionId, m]),
  );
  const rows = (sessions.data ?? []).map((session) => ({ session, box: boxOf.get(session.id) }));
  const counts = new Map<string, number>(states.map((state) => [state, 0]));
  for (const { box } of rows) {
    const state = box?.state ?? "cold";
    counts.set(state, (counts.get(state) ?? 0) + 1);
  }
  const needle = search.trim().toLowerCase();
  const shown = rows.filter(
    ({ session, box }) =>
      (stateFilter === "" || (box?.state ?? "cold") === stateFilter) &&
      (needle === "" ||
        session.title.toLowerCase().includes(needle) ||
        session.id.startsWith(needle)),
  );

  /**
   * Keeps the filter in the URL: replace, not push, so typing does not flood the history. Built
   * from the address as it is now, not this render's params: two quick changes both land.
   */
  const setParam = (name: string, value: string) => {
    const next = new URLSearchParams(window.location.search);
    if (value === "") next.delete(name);
    else next.set(name, value);
    router.replace(`${pathname}?${next.toString()}`, { scroll: false });
  };

  return (
    <Section title="Sessions">
      <p className="note" data-testid="state-counts">
        {states.map((state) => `${state} ${String(counts.get(state) ?? 0)}`).join(" · ")}
      </p>
      <div className="inline" role="search" aria-label="Filter sessions">
        <label>
          Search
          <input
            type="search"
            value={search}
            placeholder="title or id"
            onChange={(event) => {
              setSearch(event.target.value);
              setParam("q", event.target.value);
            }}
          />
        </label>
        <label>
          State
          <select
            value={stateFilter}
            onChange={(event) => {
              setParam("state", event.target.value);
            }}
          >
            <option value="">any</option>
            {states.map((state) => (
              <option key={state} value={state}>
                {state}
              </option>
            ))}
          </select>
        </label>
      </div>
      <QueryTable
        query={{ ...sessions, data: sessions.data === undefined ? undefined : shown }}
        loading="Loading sessions…"
        failure="Could not load sessions"
        empty={rows.length === 0 ? "No sessions yet." : "No session matches the filter."}
        columns={["Title", "State", "Generations", "Archive", "Backend", "Created"]}
        row={({ session, box }) => (
          <tr key={session.id}>
            <td>
              <a href={`/sessions/${session.id}?workspace=${workspaceId}`}>
                {session.title === "" ? "Untitled session" : session.title}
              </a>
            </td>
            <td>
              <span className={`state state-${box?.state ?? "cold"}`}>{box?.state ?? "cold"}</span>
            </td>
            <td>
              {box === undefined
                ? "—"
                : `${String(box.workspaceGeneration)} / ${box.archiveGeneration === null ? "—" : String(box.archiveGeneration)}`}
            </td>
            <td>{box === undefined ? "—" : box.archiveComplete ? "complete" : "behind"}</td>
            <td>{session.backend}</td>
            <td>{formatTime(session.createdAt)}</td>
          </tr>
        )}
      />
      <ErrorAlert error={machines.error} prefix="Could not load the boxes' states" />
      <form
        aria-label="New session"
        className="inline"
        onSubmit={submitHandler((fields, form) => {
          create.mutate(
            { workspaceId, title: formText(fields, "title") },
            { onSuccess: () => form.reset() },
          );
        })}
      >
        <label>
          Title
          <input name="title" required maxLength={100} />
        </label>
        <button type="submit" disabled={create.isPending}>
          New session
        </button>
      </form>
      <ErrorAlert error={create.error} />
    </Section>
  );
}
