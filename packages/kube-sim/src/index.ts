/** @berth/kube-sim: a simulated Kubernetes API server for tests (see README.md). */
export { startKubeSim } from "./kubeSim.ts";
export type { KubeSim, KubeSimOptions } from "./kubeSim.ts";
export type { Clock } from "./clock.ts";
export type { AdmissionHook, AdmissionOperation, AdmissionRequest } from "./admission.ts";
export { KubeStatusError } from "./errors.ts";
export type { StatusCause, StatusReason } from "./errors.ts";
export type { KubeObject } from "./objects.ts";
export { kubeConfigYaml } from "./kubeconfig.ts";
export type { FaultEffect, FaultHandle, FaultSpec } from "./faults/faultRules.ts";
export type { FaultCode } from "./faults/faultStatus.ts";
export type { LoggedRequest, RequestQuery } from "./faults/requestLog.ts";
export type { Verb } from "./faults/requestInfo.ts";
export type { UserInfo } from "./admission.ts";
export type { KubeletOptions } from "./kubeSim.ts";
export { ManualClock } from "./clock.ts";
export type { Kubelet } from "./kubelet/kubelet.ts";
export type {
  Runtime,
  RuntimeCommand,
  RuntimeContext,
  RuntimeMap,
  RuntimeMount,
} from "./kubelet/runtimes.ts";
export { volumeEnvName } from "./kubelet/runtimes.ts";
export type { FaultTarget, PodFault } from "./kubelet/podFaults.ts";
export { nameHash } from "./nameHash.ts";
