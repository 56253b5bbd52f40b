import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { allocateSandbox } from "./allocation.ts";
import {
  derivedNames,
  isDns1123Label,
  MAX_VOLUME_CLAIM_TEMPLATE_NAME_LENGTH,
  SANDBOX_NAME_LENGTH,
  sandboxNameFor,
  SandboxNameError,
  shortId,
} from "./sandboxNames.ts";
import { simClient } from "./tests/simClient.ts";

const UUID = "3f2a9c1b-7d4e-4a6b-9c8d-0e1f2a3b4c5d";

describe("Sandbox names", () => {
  it("are berth-<12 hex>-<12 hex> whatever the ids look like", () => {
    const ids = [
      { sandboxGroupId: UUID, allocationId: "a8b7c6d5-e4f3-4210-9876-543210fedcba" },
      { sandboxGroupId: "G".repeat(200), allocationId: "Ünïcødé allocation/with spaces" },
      { sandboxGroupId: "x", allocationId: "y" },
    ];
    for (const id of ids) {
      const name = sandboxNameFor(id);
      expect(name).toMatch(/^berth-[0-9a-f]{12}-[0-9a-f]{12}$/);
      expect(name).toHaveLength(SANDBOX_NAME_LENGTH);
      expect(isDns1123Label(name)).toBe(true);
    }
    // Deterministic: the same ids always name the same Sandbox.
    expect(sandboxNameFor({ sandboxGroupId: UUID, allocationId: "x" })).toBe(
      sandboxNameFor({ sandboxGroupId: UUID, allocationId: "x" }),
    );
    expect(shortId("a")).not.toBe(shortId("b"));
    expect(() => shortId("")).toThrow(SandboxNameError);
  });

  it("keeps every derived name a DNS-1123 label of at most 63 characters", () => {
    const name = sandboxNameFor({ sandboxGroupId: UUID, allocationId: UUID });
    const longest = "w".repeat(MAX_VOLUME_CLAIM_TEMPLATE_NAME_LENGTH);
    const names = derivedNames(name, ["workspace", longest]);
    expect(names).toEqual({
      sandbox: name,
      pod: name,
      service: name,
      persistentVolumeClaims: [`workspace-${name}`, `${longest}-${name}`],
    });
    expect(names.persistentVolumeClaims[1]).toHaveLength(63);
    for (const derived of [names.pod, names.service, ...names.persistentVolumeClaims])
      expect(isDns1123Label(derived)).toBe(true);
  });

  it("refuses a volume claim template whose PVC name would not fit, or that is not a label", () => {
    const name = sandboxNameFor({ sandboxGroupId: UUID, allocationId: UUID });
    const tooLong = "w".repeat(MAX_VOLUME_CLAIM_TEMPLATE_NAME_LENGTH + 1);
    expect(() => derivedNames(name, [tooLong])).toThrow(
      expect.objectContaining({ what: "pvc", value: `${tooLong}-${name}` }),
    );
    expect(() => derivedNames(name, ["Work_Space"])).toThrow(
      expect.objectContaining({ what: "volume claim template" }),
    );
    // A Service name must start with a letter (DNS-1035), a pod's need not.
    expect(() => derivedNames("0abc", [])).toThrow(expect.objectContaining({ what: "service" }));
  });

  it("the controller makes the pod, the Service and the longest-named PVC from an allocated Sandbox", async () => {
    await using f = await simClient({ sim: { controller: true } });
    const longest = "w".repeat(MAX_VOLUME_CLAIM_TEMPLATE_NAME_LENGTH);
    const allocation = await allocateSandbox(f.client, f.op(), {
      installationId: "install-1",
      sandboxGroupId: UUID,
      // An allocation id lives in an annotation, which has no length limit to speak of.
      metadata: { workspaceId: UUID, leaseId: UUID, epoch: 1, allocationId: "a".repeat(200) },
      profile: { template: "default", image: "busybox", resources: {} },
      podTemplate: { spec: { containers: [{ name: "main", image: "busybox" }] } },
      volumeClaimTemplates: [
        {
          metadata: { name: longest },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        },
      ],
    });
    await f.sim.settled();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(f.sim.kubeConfig());
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const { names } = allocation;
    const [pod, service, claim] = await Promise.all([
      core.readNamespacedPod({ name: names.pod, namespace: "default" }),
      core.readNamespacedService({ name: names.service, namespace: "default" }),
      core.readNamespacedPersistentVolumeClaim({
        name: names.persistentVolumeClaims[0] ?? "",
        namespace: "default",
      }),
    ]);
    expect([pod.metadata?.name, service.metadata?.name, claim.metadata?.name]).toEqual([
      names.pod,
      names.service,
      `${longest}-${names.sandbox}`,
    ]);
  });
});
