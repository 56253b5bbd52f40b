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
    <div className="once">
      <label>
        {label}
        <input
          readOnly
          value={value}
          onFocus={(event) => {
            event.currentTarget.select();
          }}
        />
      </label>
      <p className="note">{children}</p>
    </div>
  );
}
