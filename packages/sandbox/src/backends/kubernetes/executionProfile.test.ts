import { canonicalFingerprint } from "@berth/box-protocol";
import { describe, expect, it } from "vitest";
import {
  executionProfileFingerprint,
  podTemplateHash,
  type PodTemplate,
} from "./executionProfile.ts";
import type { ExecutionProfile } from "../../spawner/executionProfile.ts";

const profile: ExecutionProfile = {
  template: "default",
  image: "ghcr.io/berth/boxd:1.0",
  resources: { requests: { cpu: "500m", memory: "1Gi" }, limits: { cpu: "2", memory: "4Gi" } },
  runtimeClassName: "gvisor",
};

const podTemplate: PodTemplate = {
  metadata: { labels: { app: "berth-box" } },
  spec: {
    runtimeClassName: "gvisor",
    containers: [{ name: "boxd", image: "ghcr.io/berth/boxd:1.0", args: ["serve", "--port=1024"] }],
  },
};

describe("fingerprints", () => {
  it("the pod-template hash is the project's canonical fingerprint of the template as written", () => {
    expect(podTemplateHash(podTemplate)).toBe(canonicalFingerprint(podTemplate as never));
    expect(podTemplateHash(podTemplate)).toMatch(/^sha256:[0-9a-f]{64}$/);
    const reordered: PodTemplate = {
      spec: {
        containers: [
          { args: ["serve", "--port=1024"], image: "ghcr.io/berth/boxd:1.0", name: "boxd" },
        ],
        runtimeClassName: "gvisor",
      },
      metadata: { labels: { app: "berth-box" } },
    };
    expect(podTemplateHash(reordered)).toBe(podTemplateHash(podTemplate));
  });

  it("the execution profile's does not depend on key order or undefined members", () => {
    const rebuilt: ExecutionProfile = {
      runtimeClassName: "gvisor",
      resources: { limits: { memory: "4Gi", cpu: "2" }, requests: { memory: "1Gi", cpu: "500m" } },
      image: "ghcr.io/berth/boxd:1.0",
      template: "default",
    };
    expect(executionProfileFingerprint(rebuilt, podTemplate)).toBe(
      executionProfileFingerprint(profile, podTemplate),
    );
    const withoutClass: ExecutionProfile = { template: "t", image: "i", resources: {} };
    expect(
      executionProfileFingerprint({ ...withoutClass, runtimeClassName: undefined }, podTemplate),
    ).toBe(executionProfileFingerprint(withoutClass, podTemplate));
  });

  it("changes with anything that decides what runs: template, image, resources, runtime class, pod template", () => {
    const base = executionProfileFingerprint(profile, podTemplate);
    const variants: [ExecutionProfile, PodTemplate][] = [
      [{ ...profile, template: "gpu" }, podTemplate],
      [{ ...profile, image: "ghcr.io/berth/boxd:1.1" }, podTemplate],
      [
        { ...profile, resources: { ...profile.resources, limits: { cpu: "2", memory: "8Gi" } } },
        podTemplate,
      ],
      [{ ...profile, runtimeClassName: "kata" }, podTemplate],
      [
        profile,
        {
          ...podTemplate,
          spec: {
            ...podTemplate.spec,
            containers: [{ name: "boxd", image: "x", args: ["--port=1024", "serve"] }],
          },
        },
      ],
    ];
    const fingerprints = variants.map(([p, t]) => executionProfileFingerprint(p, t));
    expect(new Set([base, ...fingerprints]).size).toBe(variants.length + 1);
  });
});
