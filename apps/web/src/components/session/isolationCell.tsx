import { Badge } from "@berth/ui/badge";
import { TableCell } from "@berth/ui/table";
import { formatBytes } from "./files/paths.ts";
import type { MachineView } from "./machineView.ts";

type Confinement = NonNullable<MachineView["confinement"]>;

/** Why an unisolated kube-sim box carries a warning: its pod is a host process, never replaced. */
export const SIMULATED_CLUSTER_TITLE =
  "This box runs without isolation: it is a pod of a simulated cluster (kube-sim), a process of the server's own user on the server's network.";

/** Why an unisolated local box carries a warning, on its badge. */
export const UNISOLATED_TITLE =
  "This box runs without isolation: its commands run as the server's own user, on the server's network. Berth replaces it at its next drain once bubblewrap works on the server.";

/** "procs 256 · mem 4.0 GiB · disk 20 GiB": only the limits the box has; "no limits" for none. */
export function limitsText(limits: Confinement["limits"]): string {
  const given = [
    limits.processes === null ? undefined : `procs ${String(limits.processes)}`,
    limits.memoryBytes === null ? undefined : `mem ${formatBytes(limits.memoryBytes)}`,
    limits.cpuWeight === null ? undefined : `cpu ${String(limits.cpuWeight)}`,
    limits.diskBytes === null ? undefined : `disk ${formatBytes(limits.diskBytes)}`,
  ].filter((part) => part !== undefined);
  return given.length === 0 ? "no limits" : given.join(" · ");
}

function IsolationBadge({
  confinement,
  backend,
}: {
  confinement: Confinement;
  backend: MachineView["backend"];
}) {
  switch (confinement.isolation) {
    case "none":
      return (
        <Badge
          variant="warning"
          title={backend === "kubernetes" ? SIMULATED_CLUSTER_TITLE : UNISOLATED_TITLE}
        >
          unisolated
        </Badge>
      );
    case "bubblewrap":
      return (
        <Badge
          variant="outline"
          title="Its own namespaces and root: it sees nothing of the server but its workspace"
        >
          bubblewrap
        </Badge>
      );
    case "pod":
      return (
        <Badge variant="outline" title="A Kubernetes pod of its own">
          pod
        </Badge>
      );
  }
}

/**
 * The Isolation cell: what the group box was given as its lease recorded it (a badge, amber for
 * an unisolated box; its network and limits beneath), "unknown" for a box recorded before Berth
 * recorded this, "—" with no box or for an enrolled machine (its owner's to confine).
 */
export function IsolationCell({ machine }: { machine: MachineView }) {
  const box = machine.confinement;
  return <TableCell data-testid="machine-isolation">{isolationContent(machine, box)}</TableCell>;
}

function isolationContent(machine: MachineView, box: Confinement | null) {
  if (box === null) {
    return machine.kind === "group" && machine.instanceId !== null ? (
      <Badge variant="muted" title="Recorded before Berth recorded a box's isolation">
        unknown
      </Badge>
    ) : (
      "—"
    );
  }
  return (
    <div className="flex flex-col items-start gap-0.5">
      <IsolationBadge confinement={box} backend={machine.backend} />
      <span className="text-xs whitespace-nowrap text-muted-foreground">network {box.network}</span>
      {/* Wraps within a narrow column: a box with every limit would otherwise widen the table. */}
      <span className="block max-w-36 text-xs text-muted-foreground">{limitsText(box.limits)}</span>
    </div>
  );
}
