"use client";

import { useQuery } from "@tanstack/react-query";
import { formatTime } from "../../lib/formatTime.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { QueryTable } from "../queryTable.tsx";
import { Section } from "../section.tsx";

/** The latest audit events of the workspace (admins only; the caller renders it for them alone). */
export function AuditSection({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const audit = useQuery(
    trpc.audit.list.queryOptions({ workspaceId, limit: 50 }, { select: (page) => page.events }),
  );

  return (
    <Section title="Audit log">
      <QueryTable
        query={audit}
        loading="Loading the audit log…"
        failure="Could not load the audit log"
        empty="Nothing recorded yet."
        columns={["Time", "Actor", "Action", "Target"]}
        row={(event) => (
          <tr key={String(event.id)}>
            <td>{formatTime(event.at)}</td>
            <td>{event.actorKind}</td>
            <td>
              <code>{event.action}</code>
            </td>
            <td>
              {event.targetKind} <code title={event.targetId}>{event.targetId.slice(0, 8)}</code>
            </td>
          </tr>
        )}
      />
    </Section>
  );
}
