"use client";

import { Tooltip, TooltipContent, TooltipTrigger } from "@berth/ui/tooltip";

/** What the Archive column's badges mean, once for the whole table (on hover or focus). */
export function ArchiveHelp() {
  return (
    <Tooltip>
      <TooltipTrigger asChild>
        <button
          type="button"
          className="cursor-help text-xs text-muted-foreground underline decoration-dotted underline-offset-4"
        >
          What is archiveComplete?
        </button>
      </TooltipTrigger>
      <TooltipContent>
        archiveComplete: a verified archive holds every write admitted to the box (its archive
        generation equals its workspace generation), so losing the box loses nothing. Archive
        behind: writes since the last archive would be lost with the box.
      </TooltipContent>
    </Tooltip>
  );
}
