import { useId } from "react";

/**
 * What the Archive column's badges mean, once for the whole table: a native popover (the
 * browser opens, closes and dismisses it, keyboard included), so no tooltip library's script
 * loads with every page for one sentence.
 */
export function ArchiveHelp() {
  const id = useId();
  return (
    <>
      <button
        type="button"
        popoverTarget={id}
        className="cursor-help text-xs text-muted-foreground underline decoration-dotted underline-offset-4"
      >
        What is archiveComplete?
      </button>
      <div
        id={id}
        popover="auto"
        className="m-auto max-w-sm rounded-md bg-popover px-3 py-2 text-xs text-popover-foreground shadow-md"
      >
        archiveComplete: a verified archive holds every write admitted to the box (its archive
        generation equals its workspace generation), so losing the box loses nothing. Archive
        behind: writes since the last archive would be lost with the box.
      </div>
    </>
  );
}
