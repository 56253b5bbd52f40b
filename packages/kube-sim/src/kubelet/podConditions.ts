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

/** The scheduler's PodScheduled True for a pod it bound. */
export function scheduledCondition(now: string): KubeObject {
  return { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: now };
}

/** PodScheduled False `Unschedulable`, keeping its transition time while it holds. */
export function unschedulableCondition(
  pod: KubeObject,
  message: string | undefined,
  now: string,
): KubeObject {
  return {
    type: "PodScheduled",
    status: "False",
    reason: "Unschedulable",
    message:
      message ?? "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.",
    lastProbeTime: null,
    lastTransitionTime: condition(pod, "PodScheduled")?.lastTransitionTime ?? now,
  };
}
