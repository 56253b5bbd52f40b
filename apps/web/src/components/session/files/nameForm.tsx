"use client";

import { Button } from "@berth/ui/button";
import { Input } from "@berth/ui/input";
import { Label } from "@berth/ui/label";
import { useState, type ReactNode } from "react";

/** One name to type (a new file's, a folder's, a new name), submitted or cancelled. */
export function NameForm({
  label,
  submit,
  initial = "",
  pending,
  error,
  onSubmit,
  onCancel,
}: {
  label: string;
  submit: string;
  initial?: string;
  pending: boolean;
  error: ReactNode;
  onSubmit: (name: string) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(initial);
  const trimmed = name.trim();
  return (
    <form
      aria-label={label}
      className="flex flex-col gap-2 rounded-lg border border-border bg-muted/30 p-3"
      onSubmit={(event) => {
        event.preventDefault();
        if (trimmed !== "") onSubmit(trimmed);
      }}
      onKeyDown={(event) => {
        if (event.key === "Escape") onCancel();
      }}
    >
      <div className="flex flex-wrap items-end gap-2">
        <Label className="min-w-48 flex-1">
          {label}
          <Input
            value={name}
            onChange={(event) => setName(event.target.value)}
            // The form opens because someone asked to type a name: take them there.
            autoFocus
            autoComplete="off"
            spellCheck={false}
          />
        </Label>
        <Button type="submit" size="sm" disabled={pending || trimmed === ""}>
          {pending ? "Working…" : submit}
        </Button>
        <Button type="button" size="sm" variant="outline" onClick={onCancel}>
          Cancel
        </Button>
      </div>
      {error}
    </form>
  );
}
