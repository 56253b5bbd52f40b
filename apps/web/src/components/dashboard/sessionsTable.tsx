import "server-only";
import type { AppRouter } from "@berth/api";
import { Table, TableHead, TableHeader, TableRow } from "@berth/ui/table";
import type { inferRouterOutputs } from "@trpc/server";
import escapeHtml from "escape-html";
import { formatTime } from "../../lib/formatTime.ts";

type Outputs = inferRouterOutputs<AppRouter>;
export interface SessionRow {
  readonly session: Outputs["sessions"]["list"][number];
  readonly box: Outputs["machines"]["list"][number] | undefined;
}

const columns = ["Title", "State", "Generations", "Archive", "Backend", "Created"] as const;

// Attributes are single-quoted (escape-html escapes both quotes): the markup also travels inside
// the page's JSON payload, where every double quote would cost three more bytes.

/** The kit's badge (`@berth/ui/badge`, `.badge` in its stylesheet) as markup. */
function badge(variant: string, text: string, state?: string): string {
  return state === undefined
    ? `<span class='badge badge-${variant}'>${escapeHtml(text)}</span>`
    : `<span class='badge badge-${variant}' data-state='${escapeHtml(state)}'><span aria-hidden='true' class='badge-dot'></span>${escapeHtml(state)}</span>`;
}

/** The badge variant of each state, as StateBadge draws it. */
const stateVariant: Record<string, string> = {
  cold: "outline",
  warming: "warning",
  warm: "success",
  draining: "outline",
};

function rowHtml({ session, box }: SessionRow, workspaceId: string): string {
  const state = box?.state ?? "cold";
  const title = session.title === "" ? "Untitled session" : session.title;
  const generations =
    box === undefined
      ? "—"
      : `${String(box.workspaceGeneration)} / ${box.archiveGeneration === null ? "—" : String(box.archiveGeneration)}`;
  const archive =
    box === undefined
      ? "—"
      : box.archiveComplete
        ? badge("success", "complete")
        : badge("warning", "behind");
  const href = `/sessions/${session.id}?workspace=${workspaceId}`;
  return (
    `<tr data-session-row data-search='${escapeHtml(session.title.toLowerCase())}' data-id='${escapeHtml(session.id)}' data-state='${escapeHtml(state)}'>` +
    `<td><a href='${escapeHtml(href)}'>${escapeHtml(title)}</a></td>` +
    `<td>${badge(stateVariant[state] ?? "outline", state, state)}</td>` +
    `<td>${generations}</td>` +
    `<td>${archive}</td>` +
    `<td>${escapeHtml(session.backend)}</td>` +
    `<td>${escapeHtml(formatTime(session.createdAt))}</td>` +
    `</tr>`
  );
}

/**
 * The sessions as rows rendered once, on the server, to markup: the browser parses and lays them
 * out and React never builds or hydrates them. A thousand rows as React elements cost the page
 * its payload twice over (the HTML, then the element tree to hydrate) and seconds of hydration
 * before the filter answers a key; as one string they cost the HTML and one copy of it. The
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
      <tbody
        // Every value is escaped above; the markup is the table's own.
        dangerouslySetInnerHTML={{ __html: rows.map((row) => rowHtml(row, workspaceId)).join("") }}
      />
    </Table>
  );
}
