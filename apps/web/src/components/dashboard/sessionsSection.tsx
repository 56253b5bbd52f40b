"use client";

import { Badge } from "@berth/ui/badge";
import { Button } from "@berth/ui/button";
import { Input } from "@berth/ui/input";
import { Label } from "@berth/ui/label";
import { Select } from "@berth/ui/select";
import { TableCell, TableRow } from "@berth/ui/table";
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
import { StateBadge, boxStates as states } from "../stateBadge.tsx";
import { StateCounts } from "./stateCounts.tsx";

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
    <Section
      title="Sessions"
      description="Each session has one box: cold until first used, warm while in use."
      action={<StateCounts counts={counts} />}
    >
      <div className="flex flex-wrap items-end gap-3" role="search" aria-label="Filter sessions">
        <Label className="w-64">
          Search
          <Input
            type="search"
            value={search}
            placeholder="title or id"
            onChange={(event) => {
              setSearch(event.target.value);
              setParam("q", event.target.value);
            }}
          />
        </Label>
        <Label className="w-40">
          State
          <Select
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
          </Select>
        </Label>
      </div>
      <QueryTable
        query={{ ...sessions, data: sessions.data === undefined ? undefined : shown }}
        loading="Loading sessions…"
        failure="Could not load sessions"
        empty={
          rows.length === 0
            ? {
                title: "No sessions yet.",
                next: (
                  <>
                    Create one with the form below, with <code>berth sessions create</code>, or
                    through the API. Its box starts on first use.
                  </>
                ),
              }
            : {
                title: "No session matches the filter.",
                next: "Clear the search or choose another state.",
              }
        }
        columns={["Title", "State", "Generations", "Archive", "Backend", "Created"]}
        row={({ session, box }) => (
          <TableRow key={session.id}>
            <TableCell className="font-medium">
              <a href={`/sessions/${session.id}?workspace=${workspaceId}`}>
                {session.title === "" ? "Untitled session" : session.title}
              </a>
            </TableCell>
            <TableCell>
              <StateBadge state={box?.state ?? "cold"} />
            </TableCell>
            <TableCell className="font-mono text-xs tabular-nums">
              {box === undefined
                ? "—"
                : `${String(box.workspaceGeneration)} / ${box.archiveGeneration === null ? "—" : String(box.archiveGeneration)}`}
            </TableCell>
            <TableCell>
              {box === undefined ? (
                "—"
              ) : box.archiveComplete ? (
                <Badge variant="success">complete</Badge>
              ) : (
                <Badge variant="warning">behind</Badge>
              )}
            </TableCell>
            <TableCell>{session.backend}</TableCell>
            <TableCell className="whitespace-nowrap text-muted-foreground">
              {formatTime(session.createdAt)}
            </TableCell>
          </TableRow>
        )}
      />
      <ErrorAlert error={machines.error} prefix="Could not load the boxes' states" />
      <form
        aria-label="New session"
        className="flex flex-wrap items-end gap-3 border-t border-border pt-4"
        onSubmit={submitHandler((fields, form) => {
          create.mutate(
            { workspaceId, title: formText(fields, "title") },
            { onSuccess: () => form.reset() },
          );
        })}
      >
        <Label className="w-72">
          Title
          <Input name="title" required maxLength={100} />
        </Label>
        <Button type="submit" disabled={create.isPending}>
          New session
        </Button>
      </form>
      <ErrorAlert error={create.error} />
    </Section>
  );
}
