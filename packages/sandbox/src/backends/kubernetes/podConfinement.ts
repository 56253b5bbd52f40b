/**
 * What a Kubernetes box is given, as the lease records it and the dashboard shows it: decided by
 * how the cluster runs pods (BERTH_KUBE_ISOLATION, kubeEnv.ts), not by anything the box says.
 */
import { noBoxLimits, type BoxConfinement } from "../../spawner/backend.ts";

/** What a pod gives its box: the pod's own isolation and network; limits the cluster enforces. */
const POD_CONFINEMENT: BoxConfinement = {
  isolation: "pod",
  network: "pod",
  limits: noBoxLimits,
};

/** What a simulated cluster's pod gives its box: nothing (a host process, on the host's network). */
const HOST_PROCESS_CONFINEMENT: BoxConfinement = {
  isolation: "none",
  network: "host",
  limits: noBoxLimits,
};

export function podConfinement(isolation: "pod" | "none"): BoxConfinement {
  return isolation === "none" ? HOST_PROCESS_CONFINEMENT : POD_CONFINEMENT;
}
