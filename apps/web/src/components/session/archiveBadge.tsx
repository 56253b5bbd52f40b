"use client";

import { Badge } from "@berth/ui/badge";
import { Tooltip, TooltipContent, TooltipTrigger } from "@berth/ui/tooltip";

/**
 * Whether a verified archive holds every admitted write: a green `archiveComplete`, or an amber
 * "archive behind". The tooltip (on hover or focus) says what that means for the box.
 */
export function ArchiveBadge({ complete }: { complete: boolean }) {
  const meaning = complete
    ? "A verified archive holds every admitted write"
    : "Writes since the last archive would be lost with the box";
  return (
    <Tooltip>
      <TooltipTrigger asChild>
        <Badge
          variant={complete ? "success" : "warning"}
          data-testid="archive-complete"
          tabIndex={0}
          className="cursor-help"
        >
          {complete ? "archiveComplete" : "archive behind"}
        </Badge>
      </TooltipTrigger>
      <TooltipContent>{meaning}</TooltipContent>
    </Tooltip>
  );
}
