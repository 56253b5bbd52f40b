import { Table, TableBody, TableHead, TableHeader, TableRow } from "@berth/ui/table";
import { memo } from "react";
import type { OverviewRow } from "./overviewRow.ts";
import { SessionRow } from "./sessionRow.tsx";

const columns = ["Title", "State", "Generations", "Archive", "Backend", "Created"] as const;

/**
 * The sessions shown by the filter. Memoized on `rows`: while a keystroke's filter is deferred,
 * the urgent render (the field's new text) passes the same rows and skips the table.
 */
export const SessionsTable = memo(function SessionsTable({
  rows,
  workspaceId,
}: {
  rows: readonly OverviewRow[];
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
      <TableBody>
        {rows.map((row) => (
          <SessionRow key={row.id} row={row} workspaceId={workspaceId} />
        ))}
      </TableBody>
    </Table>
  );
});
