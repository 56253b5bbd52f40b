import { QueryTable } from "../queryTable.tsx";
import { MachineTableRow } from "./machineTableRow.tsx";
import type { MachineView } from "./machineView.ts";
import { SwapHere } from "./swapHere.tsx";

/**
 * Every field of each machine; `archiveComplete` as a badge, the generations side by side, the
 * box's isolation as a badge (amber: unisolated) over its network and limits. With `swap` (an
 * admin's page, once the session's epoch is known), each row can take the session's work.
 */
export function MachinesTable({
  query,
  swap,
}: {
  query: { isPending: boolean; error: unknown; data: readonly MachineView[] | undefined };
  swap?: { workspaceId: string; sessionId: string; expectedEpoch: number };
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
        "Isolation",
        "Instance",
        "Epoch",
        "Generations (workspace / archive)",
        "Archive",
        "Holders",
        "Platform",
        "Last seen",
        swap !== undefined && "",
      ]}
      row={(machine) => (
        <MachineTableRow
          key={machine.sandboxId}
          machine={machine}
          {...(swap === undefined ? {} : { action: <SwapHere {...swap} machine={machine} /> })}
        />
      )}
    />
  );
}
