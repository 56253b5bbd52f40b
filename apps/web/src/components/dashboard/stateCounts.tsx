import { StateBadge } from "../stateBadge.tsx";
import { boxStates } from "../stateVariant.ts";

/** How many of the workspace's boxes are in each state, as badges ("warm 2"). */
export function StateCounts({ counts }: { counts: ReadonlyMap<string, number> }) {
  return (
    <p className="flex flex-wrap justify-end gap-1.5" data-testid="state-counts">
      {boxStates.map((state) => (
        <StateBadge
          key={state}
          state={state}
          count={counts.get(state) ?? 0}
          // Zero counts recede, so the states that have boxes stand out.
          className={(counts.get(state) ?? 0) === 0 ? "opacity-55" : undefined}
        />
      ))}
    </p>
  );
}
