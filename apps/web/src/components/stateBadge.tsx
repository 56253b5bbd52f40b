import type { AppRouter } from "@berth/api";
import { Badge, type BadgeProps } from "@berth/ui/badge";
import { cn } from "@berth/ui/cn";
import type { inferRouterOutputs } from "@trpc/server";

export type MachineState = inferRouterOutputs<AppRouter>["machines"]["list"][number]["state"];

/** A session's box's states, in the order it lives them. */
export const boxStates = ["cold", "warming", "warm", "draining"] as const;

/**
 * The colour of each state: resting ones are quiet (cold, offline), a box on its way up or
 * down is amber (draining a paler amber than warming), a live one is green.
 */
function look(state: MachineState): { variant: BadgeProps["variant"]; dot: string } {
  switch (state) {
    case "cold":
      return { variant: "outline", dot: "bg-muted-foreground/50" };
    case "warming":
      return { variant: "warning", dot: "bg-warning motion-safe:animate-pulse" };
    case "warm":
      return { variant: "success", dot: "bg-success" };
    case "draining":
      return { variant: "outline", dot: "bg-warning/70" };
    case "online":
      return { variant: "success", dot: "bg-success" };
    case "offline":
      return { variant: "muted", dot: "bg-muted-foreground/50" };
  }
}

/** A machine's state as a coloured badge; its text is the state's name, then `count` if given. */
export function StateBadge({
  state,
  count,
  className,
  ...props
}: { state: MachineState; count?: number } & Omit<BadgeProps, "variant" | "children">) {
  const { variant, dot } = look(state);
  return (
    <Badge
      variant={variant}
      className={cn(state === "draining" && "border-warning/40 text-warning", className)}
      {...props}
    >
      <span aria-hidden="true" className={cn("size-1.5 rounded-full", dot)} />
      {state}
      {count === undefined ? null : (
        <span className="font-semibold tabular-nums">{` ${String(count)}`}</span>
      )}
    </Badge>
  );
}
