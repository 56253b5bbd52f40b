// In-memory implementations of sandbox's ports, for tests only (never imported by production code).
export { InMemoryDrainPort } from "./inMemoryDrainPort.ts";
export { ManualClock } from "./manualClock.ts";
export { writeWorkspaceTree } from "./workspaceTree.ts";
export type { TreeFacts, TreeShape } from "./workspaceTree.ts";
export { boxMemory, boxPids, killBox } from "./boxProcesses.ts";
export { removeLocalBoxes } from "./localBoxes.ts";
export { RacepointBackend } from "./racepointBackend.ts";
export type { Racepoints } from "./racepointBackend.ts";
// kube-sim with boxd as its pods' process, for the API's end-to-end tests on the Kubernetes backend.
export {
  SANDBOXES,
  kubeBoxWorld,
  sandboxGone,
  sandboxMode,
} from "../backends/kubernetes/tests/kubeBoxWorld.ts";
export type { KubeBoxWorld } from "../backends/kubernetes/tests/kubeBoxWorld.ts";
export { BOXD_TEST_IMAGE } from "../backends/kubernetes/tests/boxdRuntime.ts";
// The pod and disks Berth builds for a box from its SandboxTemplate, and where its token goes: for
// a baseline that makes the same Sandbox with the raw client, without Berth (bench/kubernetes).
export { boxPodTemplate, boxVolumeClaims } from "../backends/kubernetes/boxPodTemplate.ts";
export { TOKEN_KEY, tokenSecretName } from "../backends/kubernetes/boxTokenSecret.ts";
export { DEFAULT_BOXD_PORT } from "../backends/kubernetes/kubernetesBackend.ts";
export type { BoxTemplate } from "../backends/kubernetes/sandboxTemplate.ts";
