import { Input } from "@berth/ui/input";
import { Label } from "@berth/ui/label";
import type { ReactNode } from "react";

/**
 * A secret the API returns once (an invitation link, a token): read-only, selected on focus for
 * copying, with a note (`children`) on what it is for.
 */
export function ShownOnce({
  label,
  value,
  children,
}: {
  label: string;
  value: string;
  children: ReactNode;
}) {
  return (
    <div className="flex flex-col gap-2 rounded-lg border border-success/30 bg-success/5 p-4">
      <Label>
        {label}
        <Input
          readOnly
          value={value}
          className="font-mono text-xs"
          onFocus={(event) => {
            event.currentTarget.select();
          }}
        />
      </Label>
      <p className="text-sm text-muted-foreground">{children}</p>
    </div>
  );
}
