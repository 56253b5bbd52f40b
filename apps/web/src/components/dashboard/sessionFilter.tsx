"use client";

import { Input } from "@berth/ui/input";
import { Label } from "@berth/ui/label";
import { Select } from "@berth/ui/select";
import { useSearchParams } from "next/navigation";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { EmptyState } from "../emptyState.tsx";
import { boxStates } from "../stateVariant.ts";

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
 * The filter before the page's scripts have loaded: the fields are plain HTML already, so this
 * inline script (run as the page streams in) makes typing into them filter the rows with its own
 * style rule, built as filterRule builds it (keep the two in step), and switches the
 * server-rendered rule off. Once hydrated, SessionFilter's first layout effects take over what
 * was typed and this stands down. On a page load the filter so answers a key as soon as the rows
 * are there, not once the page's scripts have loaded and hydrated it.
 */
const earlyFilterScript = `(() => {
  const css = (text) => text.replace(/[\\\\"<>\\n\\r\\f]/g, (c) => "\\\\" + c.charCodeAt(0).toString(16) + " ");
  const rule = (search, state) => {
    const rules = [];
    const needle = search.trim().toLowerCase();
    if (needle !== "") {
      const quoted = '"' + css(needle) + '"';
      rules.push(":not([data-search*=" + quoted + "]):not([data-id^=" + quoted + "])");
    }
    if (state !== "") rules.push(':not([data-state="' + css(state) + '"])');
    return rules.map((r) => "[data-session-row]" + r + "{display:none}").join("\\n");
  };
  const early = document.createElement("style");
  early.setAttribute("data-early-filter", "");
  document.head.append(early);
  const field = (name) => document.querySelector('[data-session-filter="' + name + '"]');
  const apply = (event) => {
    if (!early.isConnected) {
      removeEventListener("input", apply, true);
      removeEventListener("change", apply, true);
      return;
    }
    if (!(event.target instanceof Element) || !event.target.hasAttribute("data-session-filter")) return;
    // Not React's yet: a change event here would make it hydrate the whole page at once,
    // inside this keystroke; it adopts the typed value when it hydrates at its own pace.
    event.stopPropagation();
    const served = document.querySelector("style[data-filter-rule]");
    if (served) served.disabled = true;
    early.textContent = rule(field("q")?.value ?? "", field("state")?.value ?? "");
  };
  addEventListener("input", apply, true);
  addEventListener("change", apply, true);
})()`;

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
  const searchField = useRef<HTMLInputElement>(null);
  const stateField = useRef<HTMLSelectElement>(null);
  const rule = useRef<HTMLStyleElement>(null);
  const [adopted, setAdopted] = useState(false);

  // Hydrated: take what was typed before (earlyFilterScript), as if typed now. Layout effects,
  // so the rows never show a frame of the wrong filter while the early rule hands over.
  useLayoutEffect(() => {
    const typed = { q: searchField.current?.value ?? "", state: stateField.current?.value ?? "" };
    if (typed.q !== search) {
      setSearch(typed.q);
      setParam("q", typed.q);
    }
    if (typed.state !== state) {
      setState(typed.state);
      setParam("state", typed.state);
    }
    setAdopted(true);
    // Once, on mount: later changes come through the fields' handlers.
  }, []);
  useLayoutEffect(() => {
    if (!adopted) return;
    document.querySelector("style[data-early-filter]")?.remove();
    if (rule.current !== null) rule.current.disabled = false;
  }, [adopted]);

  // Counted from the rows' data attributes, as the style rule matches them: no layout forced.
  useEffect(() => {
    const rows = document.querySelectorAll<HTMLElement>("[data-session-row]");
    setShown([...rows].filter((row) => rowMatches(row.dataset, search, state)).length);
  }, [search, state, total]);

  return (
    <>
      <style ref={rule} data-filter-rule="">
        {filterRule(search, state)}
      </style>
      <script dangerouslySetInnerHTML={{ __html: earlyFilterScript }} />
      <div className="flex flex-wrap items-end gap-3" role="search" aria-label="Filter sessions">
        <Label className="w-64">
          Search
          <Input
            ref={searchField}
            data-session-filter="q"
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
            ref={stateField}
            data-session-filter="state"
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

/** Replace, not push, so typing does not flood the history. */
function setParam(name: string, value: string): void {
  const next = new URLSearchParams(window.location.search);
  if (value === "") next.delete(name);
  else next.set(name, value);
  window.history.replaceState(null, "", `${window.location.pathname}?${next.toString()}`);
}
