import { condition } from "../controller/fields.ts";
import type { KubeObject } from "../objects.ts";

/** A scheduled pod's four conditions, each keeping its transition time while its status holds. */
export function podConditions(
  pod: KubeObject,
  state: { ready: boolean; now: string },
): KubeObject[] {
  const keep = (type: string, wanted: string): KubeObject => {
    const old = condition(pod, type);
    return {
      type,
      status: wanted,
      lastProbeTime: null,
      lastTransitionTime:
        old !== undefined && old.status === wanted
          ? (old.lastTransitionTime ?? state.now)
          : state.now,
    };
  };
  const ready = state.ready ? "True" : "False";
  return [
    keep("Initialized", "True"),
    keep("Ready", ready),
    keep("ContainersReady", ready),
    keep("PodScheduled", "True"),
  ];
}
