import { Badge } from "@berth/ui/badge";

/**
 * Whether a verified archive holds every admitted write: a green `archiveComplete`, or an amber
 * "archive behind"; its title says what that means for the box. (A native title, not a tooltip
 * component: the badge is on every row, and the column's heading explains it once.)
 */
export function ArchiveBadge({ complete }: { complete: boolean }) {
  return (
    <Badge
      variant={complete ? "success" : "warning"}
      data-testid="archive-complete"
      title={
        complete
          ? "A verified archive holds every admitted write"
          : "Writes since the last archive would be lost with the box"
      }
    >
      {complete ? "archiveComplete" : "archive behind"}
    </Badge>
  );
}
