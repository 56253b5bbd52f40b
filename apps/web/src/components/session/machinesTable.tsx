import { MarkupBody } from "../markup/markupBody.tsx";
import { QueryTable } from "../queryTable.tsx";
import { machineRowsMarkup, type MachineView } from "./machineRowsMarkup.ts";

/**
 * Every field of each machine; `archiveComplete` as a badge, the generations side by side, the
 * box's isolation as a badge (amber: unisolated) over its network and limits.
 */
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
        "Isolation",
        "Instance",
        "Epoch",
        "Generations (workspace / archive)",
        "Archive",
        "Holders",
        "Platform",
        "Last seen",
      ]}
      // One string of markup, not 200 rows of elements for hydration to walk; rebuilt on each
      // render (a few hundred microseconds), and set again only when it differs.
      body={(machines) => <MarkupBody html={machineRowsMarkup(machines)} />}
    />
  );
}
