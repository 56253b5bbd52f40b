/**
 * What a box that never served was waiting for (spec/kubernetes.md §7.4), read once its
 * readiness budget is spent: what the cluster said outranks the last API blip the poll saw.
 */
import type { BackendErrorCode } from "../../spawner/backend.ts";
import type { PodReading } from "./kubeObjects.ts";

/** Waiting reasons of a container whose image will not come by waiting. */
const IMAGE_PULL_REASONS = new Set([
  "ErrImagePull",
  "ImagePullBackOff",
  "InvalidImageName",
  "ErrImageNeverPull",
]);

export interface Diagnosis {
  readonly code: BackendErrorCode;
  readonly message: string;
}

/** The diagnosis of a box's pod, or undefined when the pod says nothing conclusive. */
export function diagnosePod(pod: PodReading): Diagnosis | undefined {
  if (pod.unschedulable !== undefined) {
    return {
      code: "capacity",
      message: `its pod cannot be scheduled: ${pod.unschedulable} (the cluster has no room for it now)`,
    };
  }
  const pull = pod.waiting.find((waiting) => IMAGE_PULL_REASONS.has(waiting.reason));
  if (pull !== undefined) {
    return {
      code: "invalid",
      message: `its image cannot be pulled (${pull.reason}${pull.message === undefined ? "" : `: ${pull.message}`}); fix the execution profile's image`,
    };
  }
  return undefined;
}
