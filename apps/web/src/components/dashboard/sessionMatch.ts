import type { OverviewRow } from "./overviewRow.ts";

/** The overview's filter: search text and a state, "" meaning any. */
export interface SessionFilterValue {
  readonly search: string;
  readonly state: string;
}

/** A row is shown when its title contains the search or its id starts with it, in the state. */
export function sessionMatches(
  row: Pick<OverviewRow, "id" | "title" | "state">,
  { search, state }: SessionFilterValue,
): boolean {
  const needle = search.trim().toLowerCase();
  return (
    (state === "" || row.state === state) &&
    (needle === "" || row.title.toLowerCase().includes(needle) || row.id.startsWith(needle))
  );
}
