import type { AppRouter } from "@berth/api";
import type { BadgeVariant } from "@berth/ui/badge";
import type { inferRouterOutputs } from "@trpc/server";

/** A session's box's states, in the order it lives them. */
export const boxStates = ["cold", "warming", "warm", "draining"] as const;

type Outputs = inferRouterOutputs<AppRouter>["machines"];

/**
 * Every state a machine is shown in: a box's, or an enrolled machine's (revoked ones only on
 * the workspace's Machines page; a session lists none).
 */
export type MachineState =
  Outputs["list"][number]["state"] | Outputs["listWorkspace"][number]["state"];

/**
 * The badge of each state: resting ones are quiet (cold, offline), a box on its way up or down is
 * amber (draining a paler amber than warming), a live one is green, a revoked machine red. Dots
 * follow the badge's data-state in the kit's stylesheet.
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
    case "revoked":
      return "destructive";
  }
}
