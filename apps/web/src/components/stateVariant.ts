import type { AppRouter } from "@berth/api";
import type { BadgeVariant } from "@berth/ui/badge";
import type { inferRouterOutputs } from "@trpc/server";

/** A session's box's states, in the order it lives them. */
export const boxStates = ["cold", "warming", "warm", "draining"] as const;

/** Every state a machine is shown in: a box's, or an enrolled machine's. */
export type MachineState = inferRouterOutputs<AppRouter>["machines"]["list"][number]["state"];

/**
 * The badge of each state: resting ones are quiet (cold, offline), a box on its way up or down is
 * amber (draining a paler amber than warming), a live one is green. Dots follow the badge's
 * data-state in the kit's stylesheet.
 */
export function stateVariant(state: MachineState): BadgeVariant {
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
