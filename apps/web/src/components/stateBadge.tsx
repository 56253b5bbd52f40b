import { Badge, type BadgeProps } from "@berth/ui/badge";
import { stateVariant, type MachineState } from "./stateVariant.ts";

/** A machine's state as a coloured badge; its text is the state's name, then `count` if given. */
export function StateBadge({
  state,
  count,
  ...props
}: { state: MachineState; count?: number } & Omit<BadgeProps, "variant" | "children">) {
  return (
    <Badge variant={stateVariant(state)} data-state={state} {...props}>
      <span aria-hidden="true" className="badge-dot" />
      {state}
      {count === undefined ? null : (
        <span className="font-semibold tabular-nums">{` ${String(count)}`}</span>
      )}
    </Badge>
  );
}
