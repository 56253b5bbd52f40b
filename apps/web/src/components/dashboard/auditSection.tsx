"use client";

import { TableCell, TableRow } from "@berth/ui/table";
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
    <Section title="Audit log" description="The latest 50 changes in this workspace, newest first.">
      <QueryTable
        query={audit}
        loading="Loading the audit log…"
        failure="Could not load the audit log"
        empty={{
          title: "Nothing recorded yet.",
          next: "Invitations, role changes, removals and API tokens are recorded here as they happen.",
        }}
        columns={["Time", "Actor", "Action", "Target"]}
        row={(event) => (
          <TableRow key={String(event.id)}>
            <TableCell className="whitespace-nowrap text-muted-foreground">
              {formatTime(event.at)}
            </TableCell>
            <TableCell>{event.actorKind}</TableCell>
            <TableCell>
              <code>{event.action}</code>
            </TableCell>
            <TableCell>
              {event.targetKind}{" "}
              <code className="text-muted-foreground" title={event.targetId}>
                {event.targetId.slice(0, 8)}
              </code>
            </TableCell>
          </TableRow>
        )}
      />
    </Section>
  );
}
