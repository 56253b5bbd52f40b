import { Input } from "@berth/ui/input";
import { Label } from "@berth/ui/label";
import { Select } from "@berth/ui/select";
import { useEffect, useRef } from "react";
import { boxStates } from "../stateVariant.ts";
import type { SessionFilterValue } from "./sessionMatch.ts";

/** The sessions' search and state fields; the overview holds their value (sessionsOverview.tsx). */
export function SessionFilter({
  value,
  onChange,
}: {
  value: SessionFilterValue;
  onChange: (change: Partial<SessionFilterValue>) => void;
}) {
  const searchField = useRef<HTMLInputElement>(null);
  const stateField = useRef<HTMLSelectElement>(null);
  // The fields are plain HTML until the page hydrates, and React keeps what was typed into them
  // meanwhile but reports no change: take it once hydrated, as if typed now.
  useEffect(() => {
    const search = searchField.current?.value ?? value.search;
    const state = stateField.current?.value ?? value.state;
    if (search !== value.search) onChange({ search });
    if (state !== value.state) onChange({ state });
    // Once, on mount: later changes come through the fields' handlers.
  }, []);

  return (
    <div className="flex flex-wrap items-end gap-3" role="search" aria-label="Filter sessions">
      <Label className="w-64">
        Search
        <Input
          ref={searchField}
          type="search"
          value={value.search}
          placeholder="title or id"
          onChange={(event) => {
            onChange({ search: event.target.value });
          }}
        />
      </Label>
      <Label className="w-40">
        State
        <Select
          ref={stateField}
          value={value.state}
          onChange={(event) => {
            onChange({ state: event.target.value });
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
  );
}
