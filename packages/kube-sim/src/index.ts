/** @berth/kube-sim: a simulated Kubernetes API server for tests (see README.md). */
export { startKubeSim } from "./kubeSim.ts";
export type { KubeSim, KubeSimOptions } from "./kubeSim.ts";
export type { Clock } from "./clock.ts";
export type { AdmissionHook, AdmissionOperation, AdmissionRequest } from "./admission.ts";
export type { InterceptedRequest, RequestInterceptor } from "./interceptors.ts";
export { KubeStatusError } from "./errors.ts";
export type { StatusCause, StatusReason } from "./errors.ts";
export type { KubeObject } from "./objects.ts";
export { kubeConfigYaml } from "./kubeconfig.ts";
