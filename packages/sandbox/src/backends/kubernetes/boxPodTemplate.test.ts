import { describe, expect, it } from "vitest";
import { BackendError } from "../../spawner/backend.ts";
import type { ExecutionProfile } from "../../spawner/executionProfile.ts";
import type { VolumeClaimTemplate } from "./allocation.ts";
import {
  boxPodTemplate,
  boxVolumeClaims,
  TEMPLATE_POD_LABEL,
  TOKEN_MOUNT_PATH,
  WORKSPACE_MOUNT_PATH,
} from "./boxPodTemplate.ts";
import { podTemplateHash, type PodTemplate } from "./executionProfile.ts";
import type { JsonValue } from "./kubeObjects.ts";
import type { BoxTemplate } from "./sandboxTemplate.ts";
import { boxTemplateManifest, type BoxTemplateManifest } from "./tests/boxTemplate.ts";

const profile: ExecutionProfile = { template: "berth-box", image: "boxd:2", resources: {} };

function templateOf(manifest: BoxTemplateManifest): BoxTemplate {
  return {
    name: manifest.metadata.name,
    podTemplate: manifest.spec.podTemplate as unknown as PodTemplate,
    volumeClaimTemplates: (manifest.spec.volumeClaimTemplates ?? []) as VolumeClaimTemplate[],
  };
}

function build(template: BoxTemplate, overrides: Partial<ExecutionProfile> = {}): PodTemplate {
  return boxPodTemplate({
    template,
    profile: { ...profile, ...overrides },
    identity: { kind: "box", sandboxName: "bx-1" },
    boxdPort: 7070,
  });
}

type Json = { [key: string]: JsonValue };
const containers = (pod: PodTemplate) => pod.spec.containers as unknown as Json[];
const boxd = (pod: PodTemplate) => containers(pod).find((c) => c.name === "boxd") as Json;
const envOf = (pod: PodTemplate): Record<string, JsonValue | undefined> =>
  Object.fromEntries(
    (boxd(pod).env as { name: string; value?: JsonValue; valueFrom?: JsonValue }[]).map((e) => [
      e.name,
      e.value ?? e.valueFrom,
    ]),
  );

describe("a box's pod from its SandboxTemplate", () => {
  it("Berth's manifest: boxd gets the profile's image, its address, instance id, token and pod uid, its mounts and probe", () => {
    const pod = build(templateOf(boxTemplateManifest("berth-box")));
    expect(boxd(pod).image).toBe("boxd:2");
    expect(envOf(pod)).toEqual({
      BOXD_HOST: { fieldRef: { fieldPath: "status.podIP" } },
      BOXD_PORT: "7070",
      BOXD_INSTANCE_ID: "bx-1",
      BOXD_ROOT: WORKSPACE_MOUNT_PATH,
      BOXD_TOKEN_FILE: `${TOKEN_MOUNT_PATH}/token`,
      BOXD_POD_UID: { fieldRef: { fieldPath: "metadata.uid" } },
    });
    expect(boxd(pod).volumeMounts).toEqual([
      { name: "workspace", mountPath: WORKSPACE_MOUNT_PATH },
      { name: "box-token", mountPath: TOKEN_MOUNT_PATH, readOnly: true },
    ]);
    expect(boxd(pod).ports).toEqual([{ name: "boxd", containerPort: 7070 }]);
    expect(boxd(pod).readinessProbe).toEqual({
      httpGet: { path: "/healthz", port: "boxd" },
      periodSeconds: 1,
    });
    expect(pod.spec.volumes).toEqual([
      { name: "box-token", secret: { secretName: "bx-1-token", defaultMode: 0o400 } },
    ]);
    expect(pod.spec.automountServiceAccountToken).toBe(false);
    expect(pod.metadata?.labels).toEqual({
      "app.kubernetes.io/part-of": "berth",
      [TEMPLATE_POD_LABEL]: "berth-box",
    });
    expect(boxVolumeClaims(templateOf(boxTemplateManifest("berth-box")))).toEqual([
      {
        metadata: { name: "workspace" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } },
      },
    ]);
  });

  it("keeps what the admin added (scheduling, sidecars, env, resources, annotations, volumes); Berth's own keys win", () => {
    const manifest = boxTemplateManifest("berth-box");
    const edited: BoxTemplateManifest = {
      ...manifest,
      spec: {
        ...manifest.spec,
        podTemplate: {
          metadata: {
            labels: { team: "ml", [TEMPLATE_POD_LABEL]: "spoofed" },
            annotations: { "example.com/owner": "ml" },
          },
          spec: {
            nodeSelector: { pool: "boxes" },
            automountServiceAccountToken: true,
            volumes: [
              { name: "cache", emptyDir: {} },
              { name: "box-token", hostPath: { path: "/etc" } },
            ],
            containers: [
              { name: "proxy", image: "envoy:1" },
              {
                name: "boxd",
                image: "pinned:0",
                resources: { limits: { memory: "2Gi" } },
                securityContext: { allowPrivilegeEscalation: false },
                env: [
                  { name: "LANG", value: "C.UTF-8" },
                  { name: "BOXD_TOKEN_FILE", value: "/etc/shadow" },
                ],
                volumeMounts: [
                  { name: "cache", mountPath: "/cache" },
                  { name: "box-token", mountPath: "/elsewhere" },
                ],
              },
            ],
          },
        },
      },
    };
    const pod = build(templateOf(edited));
    expect(pod.spec.nodeSelector).toEqual({ pool: "boxes" });
    expect(pod.spec.automountServiceAccountToken).toBe(false);
    expect(containers(pod).map((c) => c.name)).toEqual(["proxy", "boxd"]);
    expect(containers(pod)[0]).toEqual({ name: "proxy", image: "envoy:1" });
    expect(boxd(pod).image).toBe("boxd:2");
    expect(boxd(pod).resources).toEqual({ limits: { memory: "2Gi" } });
    expect(boxd(pod).securityContext).toEqual({ allowPrivilegeEscalation: false });
    expect(envOf(pod).LANG).toBe("C.UTF-8");
    expect(envOf(pod).BOXD_TOKEN_FILE).toBe(`${TOKEN_MOUNT_PATH}/token`);
    expect((boxd(pod).env as Json[]).filter((e) => e.name === "BOXD_TOKEN_FILE")).toHaveLength(1);
    expect(boxd(pod).volumeMounts).toEqual([
      { name: "cache", mountPath: "/cache" },
      { name: "workspace", mountPath: WORKSPACE_MOUNT_PATH },
      { name: "box-token", mountPath: TOKEN_MOUNT_PATH, readOnly: true },
    ]);
    expect(pod.spec.volumes).toEqual([
      { name: "cache", emptyDir: {} },
      { name: "box-token", secret: { secretName: "bx-1-token", defaultMode: 0o400 } },
    ]);
    expect(pod.metadata).toEqual({
      labels: { team: "ml", [TEMPLATE_POD_LABEL]: "berth-box" },
      annotations: { "example.com/owner": "ml" },
    });
  });

  it("the profile's resources and runtime class replace the template's", () => {
    const manifest = boxTemplateManifest("berth-box");
    const pod = build(templateOf(manifest), {
      resources: { limits: { cpu: "2" } },
      runtimeClassName: "gvisor",
    });
    expect(boxd(pod).resources).toEqual({ limits: { cpu: "2" } });
    expect(pod.spec.runtimeClassName).toBe("gvisor");
  });

  it("is the same JSON for the same template, and another for a changed one", () => {
    const manifest = boxTemplateManifest("berth-box");
    const hash = podTemplateHash(build(templateOf(manifest)));
    expect(podTemplateHash(build(templateOf(boxTemplateManifest("berth-box"))))).toBe(hash);
    const changed = structuredClone(manifest);
    changed.spec.podTemplate.spec.nodeSelector = { pool: "other" };
    expect(podTemplateHash(build(templateOf(changed)))).not.toBe(hash);
  });

  it("a template without a boxd container, or without a workspace disk, is refused as invalid, naming what is missing", () => {
    const manifest = boxTemplateManifest("no-boxd");
    const noBoxd = structuredClone(manifest);
    noBoxd.spec.podTemplate.spec.containers = [{ name: "main", image: "busybox" }];
    const refusal = (() => {
      try {
        build(templateOf(noBoxd));
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(BackendError);
    expect((refusal as BackendError).code).toBe("invalid");
    expect((refusal as BackendError).message).toMatch(
      /SandboxTemplate no-boxd has no container named boxd/,
    );
    const noDisk = structuredClone(manifest);
    noDisk.spec.volumeClaimTemplates = [{ metadata: { name: "scratch" }, spec: {} }];
    expect(() => boxVolumeClaims(templateOf(noDisk))).toThrow(
      /SandboxTemplate no-boxd claims no disk named workspace/,
    );
  });
});
