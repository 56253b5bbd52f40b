import type { WriteNote } from "./useGitWrites.ts";

/**
 * The last write and the workspace generation it produced, in a live region that is always in
 * the page, so screen readers announce each new note rather than missing the first.
 */
export function WriteStatus({ note }: { note: WriteNote | null }) {
  return (
    <p role="status" className="min-h-5 text-sm text-muted-foreground">
      {note === null ? null : `${note.text} · ${note.landed}`}
    </p>
  );
}
