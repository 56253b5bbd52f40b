import escapeHtml from "escape-html";

/**
 * One overview row as it travels to the browser: a tuple, because a thousand rows' repeated
 * keys would be a fifth of the page's data. Built on the server (sessionsTable.tsx); turned
 * into markup on both sides by `rowsMarkup`, which is the same function on both.
 */
export type OverviewRow = readonly [
  id: string,
  title: string,
  state: string,
  /** "workspace / archive" generations, or "—" without a box. */
  generations: string,
  archive: "complete" | "behind" | null,
  backend: string,
  /** Already formatted (UTC), so server and browser write the same text. */
  created: string,
];

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

function rowMarkup(row: OverviewRow, workspaceId: string): string {
  const [id, title, state, generations, archive, backend, created] = row;
  const shownTitle = title === "" ? "Untitled session" : title;
  const archiveCell =
    archive === null
      ? "—"
      : archive === "complete"
        ? badge("success", "complete")
        : badge("warning", "behind");
  const href = `/sessions/${id}?workspace=${workspaceId}`;
  return (
    `<tr data-session-row data-search='${escapeHtml(title.toLowerCase())}' data-id='${escapeHtml(id)}' data-state='${escapeHtml(state)}'>` +
    `<td><a href='${escapeHtml(href)}'>${escapeHtml(shownTitle)}</a></td>` +
    `<td>${badge(stateVariant[state] ?? "outline", state, state)}</td>` +
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
