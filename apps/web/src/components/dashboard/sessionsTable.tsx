import "server-only";
import type { AppRouter } from "@berth/api";
import { Table, TableHead, TableHeader, TableRow } from "@berth/ui/table";
import type { inferRouterOutputs } from "@trpc/server";
import { formatTime } from "../../lib/formatTime.ts";
import { SessionRowsBody } from "./sessionRowsBody.tsx";
import type { OverviewRow } from "./sessionRowsMarkup.ts";

type Outputs = inferRouterOutputs<AppRouter>;
export interface SessionRow {
  readonly session: Outputs["sessions"]["list"][number];
  readonly box: Outputs["machines"]["list"][number] | undefined;
}

const columns = ["Title", "State", "Generations", "Archive", "Backend", "Created"] as const;

/** A session and its box as the overview shows them, in the compact form sent to the browser. */
function overviewRow({ session, box }: SessionRow): OverviewRow {
  return [
    session.id,
    session.title,
    box?.state ?? "cold",
    box === undefined
      ? "—"
      : `${String(box.workspaceGeneration)} / ${box.archiveGeneration === null ? "—" : String(box.archiveGeneration)}`,
    box === undefined ? null : box.archiveComplete ? "complete" : "behind",
    session.backend,
    formatTime(session.createdAt),
  ];
}

/**
 * The sessions as rows of markup (SessionRowsBody): the browser parses and lays them out and
 * React never builds or hydrates them. A thousand rows as React elements cost the page its
 * payload twice over (the HTML, then the element tree to hydrate) and seconds of hydration
 * before the filter answers a key; as markup they cost the HTML and a short tuple each. The
 * rows are static (the overview is not live; a new session renders the page again), and each
 * carries what the filter matches on (lower-cased title, id, state) for its style rule.
 */
export function SessionsTable({
  rows,
  workspaceId,
}: {
  rows: readonly SessionRow[];
  workspaceId: string;
}) {
  return (
    <Table
      frameClassName="max-h-[40rem]"
      lazyColumns="minmax(12rem, 3fr) minmax(7rem, 1fr) minmax(6rem, 1fr) minmax(7rem, 1fr) minmax(5rem, 1fr) minmax(10rem, 1.5fr)"
      // Column looks set once here rather than repeated on each row's cells.
      className="[&_td:nth-child(1)]:font-medium [&_td:nth-child(3)]:font-mono [&_td:nth-child(3)]:text-xs [&_td:nth-child(3)]:tabular-nums [&_td:nth-child(6)]:whitespace-nowrap [&_td:nth-child(6)]:text-muted-foreground"
    >
      <TableHeader>
        <TableRow>
          {columns.map((column) => (
            <TableHead key={column} scope="col">
              {column}
            </TableHead>
          ))}
        </TableRow>
      </TableHeader>
      <SessionRowsBody rows={rows.map(overviewRow)} workspaceId={workspaceId} />
    </Table>
  );
}
