/**
 * The status of a scheduled pod whose containers have not started: phase Pending, Ready False,
 * and each container `waiting` with the kubelet's reason (`ContainerCreating` while volumes are
 * set up, `CreateContainerConfigError`, `ErrImagePull`, `ImagePullBackOff`).
 */
import { list, record, spec, status, str } from "../controller/fields.ts";
import type { KubeObject } from "../objects.ts";
import { podConditions } from "./podConditions.ts";

export interface Waiting {
  reason: string;
  /** Absent for ContainerCreating, which the kubelet reports without one. */
  message?: string;
}

/** The `/status` merge patch; `waiting` gives each container's state, by index. */
export function waitingStatus(
  pod: KubeObject,
  waiting: (container: KubeObject, index: number) => Waiting,
  now: string,
): KubeObject {
  return {
    status: {
      phase: "Pending",
      startTime: str(status(pod).startTime) ?? now,
      conditions: podConditions(pod, { ready: false, now }),
      containerStatuses: list(spec(pod).containers).map((c, index) => ({
        name: str(c.name) ?? "",
        image: str(c.image) ?? "",
        imageID: "",
        ready: false,
        started: false,
        restartCount: 0,
        state: { waiting: waiting(c, index) },
      })),
    },
  };
}

/** The first failed pull reports ErrImagePull; every later look is the back-off. */
export function imagePullReason(pod: KubeObject): "ErrImagePull" | "ImagePullBackOff" {
  const pulledBefore = list(status(pod).containerStatuses).some((c) => {
    const reason = str(record(record(c.state).waiting).reason);
    return reason === "ErrImagePull" || reason === "ImagePullBackOff";
  });
  return pulledBefore ? "ImagePullBackOff" : "ErrImagePull";
}
