import type { AppRouter } from "@berth/api";
import { Badge, type BadgeProps, type BadgeVariant } from "@berth/ui/badge";
import type { inferRouterOutputs } from "@trpc/server";

export type MachineState = inferRouterOutputs<AppRouter>["machines"]["list"][number]["state"];

/** A session's box's states, in the order it lives them. */
export const boxStates = ["cold", "warming", "warm", "draining"] as const;

/**
 * The badge of each state: resting ones are quiet (cold, offline), a box on its way up or down is
 * amber (draining a paler amber than warming), a live one is green. Dots follow the badge's
 * data-state in the kit's stylesheet.
 */
function variantOf(state: MachineState): BadgeVariant {
  switch (state) {
    case "cold":
    case "draining":
      return "outline";
    case "warming":
      return "warning";
    case "warm":
    case "online":
      return "success";
    case "offline":
      return "muted";
  }
}

/** A machine's state as a coloured badge; its text is the state's name, then `count` if given. */
export function StateBadge({
  state,
  count,
  ...props
}: { state: MachineState; count?: number } & Omit<BadgeProps, "variant" | "children">) {
  return (
    <Badge variant={variantOf(state)} data-state={state} {...props}>
      <span aria-hidden="true" className="badge-dot" />
      {state}
      {count === undefined ? null : (
        <span className="font-semibold tabular-nums">{` ${String(count)}`}</span>
      )}
    </Badge>
  );
}
