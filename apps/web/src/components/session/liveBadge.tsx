import { Badge } from "@berth/ui/badge";
import { cn } from "@berth/ui/cn";

/**
 * Whether the page follows the session's events. The subscription's "pending" is its steady
 * state (a stream that stays open), so that is "live".
 */
export function LiveBadge({ status }: { status: "idle" | "connecting" | "pending" | "error" }) {
  const live = status === "pending";
  const failed = status === "error";
  return (
    <Badge variant={live ? "success" : failed ? "muted" : "outline"} data-testid="live-status">
      <span
        aria-hidden="true"
        className={cn(
          "size-1.5 rounded-full",
          live ? "bg-success motion-safe:animate-pulse" : "bg-muted-foreground/50",
        )}
      />
      {live ? "live" : failed ? "not live" : "connecting…"}
    </Badge>
  );
}
