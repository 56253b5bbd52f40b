import type { AppRouter } from "@berth/api";
import type { inferRouterOutputs } from "@trpc/server";
import { formatTime } from "../../lib/formatTime.ts";
import { QueryTable } from "../queryTable.tsx";

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
      empty="No machines yet."
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
        <tr key={machine.sandboxId} data-testid={`machine-${machine.sandboxId}`}>
          <th scope="row">{machine.name}</th>
          <td>{machine.kind === "group" ? "group box" : "self-hosted"}</td>
          <td>
            <span className={`state state-${machine.state}`} data-testid="machine-state">
              {machine.state}
            </span>
          </td>
          <td>{machine.active ? "yes" : "no"}</td>
          <td>
            <code>{machine.instanceId ?? "—"}</code>
          </td>
          <td>{machine.leaseEpoch ?? "—"}</td>
          <td data-testid="machine-generations">
            {machine.workspaceGeneration} / {machine.archiveGeneration ?? "—"}
          </td>
          <td>
            <span
              className={machine.archiveComplete ? "badge badge-ok" : "badge badge-warn"}
              data-testid="archive-complete"
              title={
                machine.archiveComplete
                  ? "A verified archive holds every admitted write"
                  : "Writes since the last archive would be lost with the box"
              }
            >
              {machine.archiveComplete ? "archiveComplete" : "archive behind"}
            </span>
          </td>
          <td>
            {Object.entries(machine.holders)
              .filter(([, count]) => count > 0)
              .map(([kind, count]) => `${kind} ${String(count)}`)
              .join(", ") || "none"}
          </td>
          <td>
            {machine.os === null
              ? "—"
              : `${machine.os}/${machine.arch ?? "?"}${machine.hasDisplay ? " · display" : ""}`}
          </td>
          <td>{formatTime(machine.lastSeenAt)}</td>
        </tr>
      )}
    />
  );
}
