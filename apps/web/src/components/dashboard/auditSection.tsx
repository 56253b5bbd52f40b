"use client";

import { useQuery } from "@tanstack/react-query";
import { formatTime } from "../../lib/formatTime.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";

/** The latest audit events of the workspace (admins only; the caller renders it for them alone). */
export function AuditSection({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const audit = useQuery(trpc.audit.list.queryOptions({ workspaceId, limit: 50 }));

  return (
    <section aria-label="Audit log">
      <h2>Audit log</h2>
      {audit.isPending ? <p aria-busy="true">Loading the audit log…</p> : null}
      <ErrorAlert error={audit.error} prefix="Could not load the audit log" />
      {audit.data?.events.length === 0 ? <p className="note">Nothing recorded yet.</p> : null}
      {audit.data !== undefined && audit.data.events.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Actor</th>
              <th scope="col">Action</th>
              <th scope="col">Target</th>
            </tr>
          </thead>
          <tbody>
            {audit.data.events.map((event) => (
              <tr key={String(event.id)}>
                <td>{formatTime(event.at)}</td>
                <td>{event.actorKind}</td>
                <td>
                  <code>{event.action}</code>
                </td>
                <td>
                  {event.targetKind}{" "}
                  <code title={event.targetId}>{event.targetId.slice(0, 8)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
