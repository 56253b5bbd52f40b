"use client";

import { Input } from "@berth/ui/input";
import { Label } from "@berth/ui/label";
import { Select } from "@berth/ui/select";
import { useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import { EmptyState } from "../emptyState.tsx";
import { boxStates } from "../stateBadge.tsx";

/** `text` as the inside of a CSS string: quotes and backslashes escaped, no way out of <style>. */
function cssString(text: string): string {
  return text.replace(/[\\"<>\n\r\f]/g, (char) => `\\${char.charCodeAt(0).toString(16)} `);
}

/** One rule that hides every session row the search and the state do not match. */
export function filterRule(search: string, state: string): string {
  const rules: string[] = [];
  const needle = search.trim().toLowerCase();
  if (needle !== "") {
    const quoted = `"${cssString(needle)}"`;
    rules.push(`:not([data-search*=${quoted}]):not([data-id^=${quoted}])`);
  }
  if (state !== "") rules.push(`:not([data-state="${cssString(state)}"])`);
  return rules.map((rule) => `[data-session-row]${rule}{display:none}`).join("\n");
}

/** The style rule's match, in script: whether a row with these data attributes is shown. */
function rowMatches(data: DOMStringMap, search: string, state: string): boolean {
  const needle = search.trim().toLowerCase();
  return (
    (state === "" || data.state === state) &&
    (needle === "" || (data.search ?? "").includes(needle) || (data.id ?? "").startsWith(needle))
  );
}

/**
 * The sessions' search and state filter, kept in the URL (so a filtered view can be shared).
 * It filters the server-rendered rows with a style rule: a keystroke costs one style change,
 * whatever the number of sessions, and no request (the address changes through history, which
 * does not ask the server to render the page again).
 */
export function SessionFilter({ total }: { total: number }) {
  const params = useSearchParams();
  const [search, setSearch] = useState(() => params.get("q") ?? "");
  const [state, setState] = useState(() => params.get("state") ?? "");
  const [shown, setShown] = useState(total);

  // Counted from the rows' data attributes, as the style rule matches them: no layout forced.
  useEffect(() => {
    const rows = document.querySelectorAll<HTMLElement>("[data-session-row]");
    setShown([...rows].filter((row) => rowMatches(row.dataset, search, state)).length);
  }, [search, state, total]);

  /** Replace, not push, so typing does not flood the history. */
  const setParam = (name: string, value: string) => {
    const next = new URLSearchParams(window.location.search);
    if (value === "") next.delete(name);
    else next.set(name, value);
    window.history.replaceState(null, "", `${window.location.pathname}?${next.toString()}`);
  };

  return (
    <>
      <style>{filterRule(search, state)}</style>
      <div className="flex flex-wrap items-end gap-3" role="search" aria-label="Filter sessions">
        <Label className="w-64">
          Search
          <Input
            type="search"
            value={search}
            placeholder="title or id"
            onChange={(event) => {
              setSearch(event.target.value);
              setParam("q", event.target.value);
            }}
          />
        </Label>
        <Label className="w-40">
          State
          <Select
            value={state}
            onChange={(event) => {
              setState(event.target.value);
              setParam("state", event.target.value);
            }}
          >
            <option value="">any</option>
            {boxStates.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </Select>
        </Label>
      </div>
      {total > 0 && shown === 0 ? (
        <EmptyState
          title="No session matches the filter."
          next="Clear the search or choose another state."
        />
      ) : null}
    </>
  );
}
