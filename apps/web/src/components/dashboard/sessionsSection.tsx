"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { formatTime } from "../../lib/formatTime.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { formText } from "../../lib/formText.ts";

/** The workspace's agent sessions, newest first, and a form to start one. */
export function SessionsSection({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const sessions = useQuery(trpc.sessions.list.queryOptions({ workspaceId }));
  const create = useMutation(
    trpc.sessions.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.sessions.pathFilter()),
    }),
  );

  return (
    <section aria-label="Sessions">
      <h2>Sessions</h2>
      {sessions.isPending ? <p aria-busy="true">Loading sessions…</p> : null}
      <ErrorAlert error={sessions.error} prefix="Could not load sessions" />
      {sessions.data?.length === 0 ? <p className="note">No sessions yet.</p> : null}
      {sessions.data !== undefined && sessions.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Backend</th>
              <th scope="col">Box</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {sessions.data.map((session) => (
              <tr key={session.id}>
                <td>{session.title}</td>
                <td>{session.backend}</td>
                <td>{session.activeSandboxId === null ? "none yet" : "assigned"}</td>
                <td>{formatTime(session.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form
        aria-label="New session"
        className="inline"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          create.mutate(
            { workspaceId, title: formText(new FormData(form), "title") },
            { onSuccess: () => form.reset() },
          );
        }}
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
    </section>
  );
}
