"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { formatTime } from "../../lib/formatTime.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { QueryTable } from "../queryTable.tsx";
import { Section } from "../section.tsx";
import { formText } from "../../lib/formText.ts";
import { submitHandler } from "../../lib/submitHandler.ts";

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
    <Section title="Sessions">
      <QueryTable
        query={sessions}
        loading="Loading sessions…"
        failure="Could not load sessions"
        empty="No sessions yet."
        columns={["Title", "Backend", "Box", "Created"]}
        row={(session) => (
          <tr key={session.id}>
            <td>
              <a href={`/sessions/${session.id}?workspace=${workspaceId}`}>
                {session.title === "" ? "Untitled session" : session.title}
              </a>
            </td>
            <td>{session.backend}</td>
            <td>{session.activeSandboxId === null ? "none yet" : "assigned"}</td>
            <td>{formatTime(session.createdAt)}</td>
          </tr>
        )}
      />
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
