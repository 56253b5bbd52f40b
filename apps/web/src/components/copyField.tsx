"use client";

import { Button } from "@berth/ui/button";
import { Input } from "@berth/ui/input";
import { useId, useRef, useState } from "react";

type Copied = "idle" | "copied" | "failed";

/**
 * A line to paste elsewhere (a command, a link): read-only, selected on focus, with a Copy
 * button. The clipboard is there only on secure pages (https, or this machine's own address);
 * elsewhere the text is selected and the person is told to copy it themselves.
 */
export function CopyField({
  label,
  value,
  testId,
}: {
  label: string;
  value: string;
  testId?: string;
}) {
  const [copied, setCopied] = useState<{ value: string; state: Copied }>({
    value,
    state: "idle",
  });
  // A new value (a new code) starts unannounced, without an effect to reset it.
  const state = copied.value === value ? copied.state : "idle";
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <div className="flex gap-2">
        <Input
          id={id}
          ref={input}
          readOnly
          value={value}
          data-testid={testId}
          className="font-mono text-xs"
          spellCheck={false}
          onFocus={(event) => {
            event.currentTarget.select();
          }}
        />
        <Button
          type="button"
          variant="outline"
          aria-label={`Copy ${label.toLowerCase()}`}
          onClick={() => {
            copy(value).then(
              () => setCopied({ value, state: "copied" }),
              () => {
                input.current?.focus();
                setCopied({ value, state: "failed" });
              },
            );
          }}
        >
          Copy
        </Button>
      </div>
      <p role="status" className="min-h-4 text-xs text-muted-foreground">
        {state === "copied"
          ? "Copied."
          : state === "failed"
            ? "This page cannot reach the clipboard; the text is selected: copy it with Ctrl+C."
            : null}
      </p>
    </div>
  );
}

/** Rejects where the page has no clipboard (not a secure context) or is refused it. */
async function copy(text: string): Promise<void> {
  // Typed as always there, but absent on pages served over plain http from another host.
  const clipboard = navigator.clipboard as Clipboard | undefined;
  if (clipboard === undefined) throw new Error("no clipboard on this page");
  await clipboard.writeText(text);
}
