import { Badge } from "@berth/ui/badge";
import { TableCell, TableRow } from "@berth/ui/table";
import Link from "next/link";
import { memo } from "react";
import { StateBadge } from "../stateBadge.tsx";
import type { OverviewRow } from "./overviewRow.ts";

/**
 * One session on the overview. Memoized: a filter change keeps most rows, and a kept row's
 * props are the same object, so React skips it rather than rendering it again.
 */
export const SessionRow = memo(function SessionRow({
  row,
  workspaceId,
}: {
  row: OverviewRow;
  workspaceId: string;
}) {
  return (
    <TableRow data-session-row="">
      <TableCell>
        {/* Not prefetched: a thousand rows would each watch the viewport and fetch as it scrolls. */}
        <Link href={`/sessions/${row.id}?workspace=${workspaceId}`} prefetch={false}>
          {row.title === "" ? "Untitled session" : row.title}
        </Link>
      </TableCell>
      <TableCell>
        <StateBadge state={row.state} />
      </TableCell>
      <TableCell>{row.generations}</TableCell>
      <TableCell>
        {row.archive === null ? (
          "—"
        ) : row.archive === "complete" ? (
          <Badge variant="success">complete</Badge>
        ) : (
          <Badge variant="warning">behind</Badge>
        )}
      </TableCell>
      <TableCell>{row.backend}</TableCell>
      <TableCell>{row.created}</TableCell>
    </TableRow>
  );
});
