import { Badge } from "@berth/ui/badge";
import { TableCell, TableRow, TableRowHead } from "@berth/ui/table";
import type { ReactNode } from "react";
import { formatTime } from "../../lib/formatTime.ts";
import { StateBadge } from "../stateBadge.tsx";
import { IsolationCell } from "./isolationCell.tsx";
import type { MachineView } from "./machineView.ts";

/** Whether a verified archive holds every admitted write, as the group box's badge says it. */
function ArchiveBadge({ machine }: { machine: MachineView }) {
  // An enrolled machine's files are its owner's: Berth never archives them.
  if (machine.kind !== "group")
    return (
      <Badge variant="outline" title="Berth never archives an enrolled machine's files">
        not archived
      </Badge>
    );
  return machine.archiveComplete ? (
    <Badge
      variant="success"
      data-testid="archive-complete"
      title="A verified archive holds every admitted write"
    >
      archiveComplete
    </Badge>
  ) : (
    <Badge
      variant="warning"
      data-testid="archive-complete"
      title="Writes since the last archive would be lost with the box"
    >
      archive behind
    </Badge>
  );
}

function holdersText(machine: MachineView): string {
  const held = Object.entries(machine.holders)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${kind} ${String(count)}`);
  return held.length === 0 ? "none" : held.join(", ");
}

function platformText(machine: MachineView): string {
  if (machine.os === null) return "—";
  return `${machine.os}/${machine.arch ?? "?"}${machine.hasDisplay ? " · display" : ""}`;
}

/**
 * One machine the session can run on, every field of it; `action` (an admin's) fills the last
 * cell when given.
 */
export function MachineTableRow({ machine, action }: { machine: MachineView; action?: ReactNode }) {
  const instance = machine.instanceId;
  return (
    <TableRow data-testid={`machine-${machine.sandboxId}`} data-active={machine.active}>
      <TableRowHead className="min-w-32 whitespace-normal">{machine.name}</TableRowHead>
      <TableCell>
        {/* The group box names its backend (a Kubernetes box is a Sandbox on the cluster). */}
        {machine.kind === "group" ? (
          <>
            group box{" "}
            <span data-testid="machine-backend" className="text-xs text-muted-foreground">
              {machine.backend ?? ""}
            </span>
          </>
        ) : (
          "self-hosted"
        )}
      </TableCell>
      <TableCell>
        <StateBadge state={machine.state} data-testid="machine-state" />
      </TableCell>
      <TableCell data-testid="machine-active">{machine.active ? "yes" : "no"}</TableCell>
      <IsolationCell machine={machine} />
      {/* Long and only ever copied: cut short here, whole on hover and when copied. */}
      <TableCell className="max-w-32">
        <code
          className="block truncate text-xs text-muted-foreground"
          title={instance ?? undefined}
        >
          {instance ?? "—"}
        </code>
      </TableCell>
      <TableCell className="tabular-nums">
        {machine.leaseEpoch === null ? "—" : String(machine.leaseEpoch)}
      </TableCell>
      <TableCell data-testid="machine-generations" className="font-mono text-xs tabular-nums">
        {String(machine.workspaceGeneration)} /{" "}
        {machine.archiveGeneration === null ? "—" : String(machine.archiveGeneration)}
      </TableCell>
      <TableCell>
        <ArchiveBadge machine={machine} />
      </TableCell>
      <TableCell className="whitespace-nowrap">{holdersText(machine)}</TableCell>
      <TableCell className="whitespace-nowrap">{platformText(machine)}</TableCell>
      <TableCell className="whitespace-nowrap text-muted-foreground">
        {formatTime(machine.lastSeenAt)}
      </TableCell>
      {action === undefined ? null : <TableCell className="text-right">{action}</TableCell>}
    </TableRow>
  );
}
