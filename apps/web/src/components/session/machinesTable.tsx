import { Badge } from "@berth/ui/badge";
import type { AppRouter } from "@berth/api";
import { TableCell, TableRow, TableRowHead } from "@berth/ui/table";
import type { inferRouterOutputs } from "@trpc/server";
import { formatTime } from "../../lib/formatTime.ts";
import { QueryTable } from "../queryTable.tsx";
import { StateBadge } from "../stateBadge.tsx";
import { ArchiveBadge } from "./archiveBadge.tsx";

type MachineView = inferRouterOutputs<AppRouter>["machines"]["list"][number];

/** Every field of each machine; `archiveComplete` as a badge, the generations side by side. */
export function MachinesTable({
  query,
}: {
  query: { isPending: boolean; error: unknown; data: readonly MachineView[] | undefined };
}) {
  return (
    <QueryTable
      query={query}
      loading="Loading machines…"
      failure="Could not load the machines"
      empty={{
        title: "No machines yet.",
        next: "A session's box is listed as soon as the session exists; reload the page to look again.",
      }}
      caption="Where this session's operations can run"
      columns={[
        "Machine",
        "Kind",
        "State",
        "Active",
        "Instance",
        "Epoch",
        "Generations (workspace / archive)",
        "Archive",
        "Holders",
        "Platform",
        "Last seen",
      ]}
      row={(machine) => (
        <TableRow key={machine.sandboxId} data-testid={`machine-${machine.sandboxId}`}>
          <TableRowHead className="min-w-32 whitespace-normal">{machine.name}</TableRowHead>
          <TableCell>{machine.kind === "group" ? "group box" : "self-hosted"}</TableCell>
          <TableCell>
            <StateBadge state={machine.state} data-testid="machine-state" />
          </TableCell>
          <TableCell>{machine.active ? "yes" : "no"}</TableCell>
          <TableCell className="max-w-32">
            {/* Long and only ever copied: cut short here, whole on hover and when copied. */}
            <code
              className="block truncate text-xs text-muted-foreground"
              title={machine.instanceId ?? undefined}
            >
              {machine.instanceId ?? "—"}
            </code>
          </TableCell>
          <TableCell className="tabular-nums">{machine.leaseEpoch ?? "—"}</TableCell>
          <TableCell data-testid="machine-generations" className="font-mono text-xs tabular-nums">
            {machine.workspaceGeneration} / {machine.archiveGeneration ?? "—"}
          </TableCell>
          <TableCell>
            {machine.kind === "group" ? (
              <ArchiveBadge complete={machine.archiveComplete} />
            ) : (
              // An enrolled machine's files are its owner's: Berth never archives them.
              <Badge variant="outline" title="Berth never archives an enrolled machine's files">
                not archived
              </Badge>
            )}
          </TableCell>
          <TableCell className="whitespace-nowrap">
            {Object.entries(machine.holders)
              .filter(([, count]) => count > 0)
              .map(([kind, count]) => `${kind} ${String(count)}`)
              .join(", ") || "none"}
          </TableCell>
          <TableCell className="whitespace-nowrap">
            {machine.os === null
              ? "—"
              : `${machine.os}/${machine.arch ?? "?"}${machine.hasDisplay ? " · display" : ""}`}
          </TableCell>
          <TableCell className="whitespace-nowrap text-muted-foreground">
            {formatTime(machine.lastSeenAt)}
          </TableCell>
        </TableRow>
      )}
    />
  );
}
