import { randomBytes } from "node:crypto";
import { startKubeSim } from "@berth/kube-sim";
import { describeBackendContract } from "../contract/index.ts";
import { KubeClient } from "./kubeClient.ts";
import { KubernetesBackend } from "./kubernetesBackend.ts";
import { sandboxNameFor } from "./sandboxNames.ts";
import { BOXD_TEST_IMAGE, boxdRuntimes } from "./tests/boxdRuntime.ts";
import { applyBoxTemplate } from "./tests/boxTemplate.ts";

// The Backend contract on kube-sim, through @kubernetes/client-node over real HTTP: the
// agent-sandbox controller makes each Sandbox's pod and PVC, and the kubelet runs boxd as the
// pod's process, from Berth's SandboxTemplate. Every adapter shares the namespace, each acting for its own installation.
describeBackendContract("kubernetes (kube-sim)", async () => {
  const sim = await startKubeSim({ controller: true, kubelet: { runtimes: boxdRuntimes } });
  await applyBoxTemplate(sim.kubeConfig(), "contract");
  const secret = randomBytes(24).toString("hex");
  return {
    adapter: (installationId) =>
      new KubernetesBackend({
        client: new KubeClient({ source: { kind: "yaml", text: sim.kubeConfig() } }),
        installationId: () => Promise.resolve(installationId),
        secret,
        pollIntervalMs: 20,
        operationTimeoutMs: 30_000,
      }),
    profile: { template: "contract", image: BOXD_TEST_IMAGE, resources: {} },
    absentInstanceId: () =>
      sandboxNameFor({
        sandboxGroupId: `never-${randomBytes(4).toString("hex")}`,
        allocationId: "never",
      }),
    dispose: () => sim.close(),
  };
});
