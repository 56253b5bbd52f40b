import escapeHtml from "escape-html";
import { badgeMarkup } from "../markup/badgeMarkup.ts";
import { stateVariant, type MachineState } from "../stateVariant.ts";

/**
 * One overview row as it travels to the browser: a tuple, because a thousand rows' repeated
 * keys would be a fifth of the page's data. Built on the server (sessionsTable.tsx); turned
 * into markup on both sides by `rowsMarkup`, which is the same function on both.
 */
export type OverviewRow = readonly [
  id: string,
  title: string,
  state: MachineState,
  /** "workspace / archive" generations, or "—" without a box. */
  generations: string,
  archive: "complete" | "behind" | null,
  backend: string,
  /** Already formatted (UTC), so server and browser write the same text. */
  created: string,
];

function rowMarkup(row: OverviewRow, workspaceId: string): string {
  const [id, title, state, generations, archive, backend, created] = row;
  const shownTitle = title === "" ? "Untitled session" : title;
  const archiveCell =
    archive === null
      ? "—"
      : archive === "complete"
        ? badgeMarkup("success", "complete")
        : badgeMarkup("warning", "behind");
  const href = `/sessions/${id}?workspace=${workspaceId}`;
  return (
    `<tr data-session-row data-search='${escapeHtml(title.toLowerCase())}' data-id='${escapeHtml(id)}' data-state='${escapeHtml(state)}'>` +
    `<td><a href='${escapeHtml(href)}'>${escapeHtml(shownTitle)}</a></td>` +
    `<td>${badgeMarkup(stateVariant(state), state, { state })}</td>` +
    `<td>${escapeHtml(generations)}</td>` +
    `<td>${archiveCell}</td>` +
    `<td>${escapeHtml(backend)}</td>` +
    `<td>${escapeHtml(created)}</td>` +
    `</tr>`
  );
}

/** Every row's markup: each value escaped, each row carrying what the filter matches on. */
export function rowsMarkup(rows: readonly OverviewRow[], workspaceId: string): string {
  return rows.map((row) => rowMarkup(row, workspaceId)).join("");
}
