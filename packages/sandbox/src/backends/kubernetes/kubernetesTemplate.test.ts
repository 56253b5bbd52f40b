/**
 * Boxes are made from the SandboxTemplate their profile names, read from the cluster at every
 * create (kube-sim, client-node over HTTP): what the admin wrote is what the Sandbox runs, a
 * changed template reaches the next box only, and a template Berth cannot use refuses the create
 * before anything is made.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BackendError } from "../../spawner/backend.ts";
import { TEMPLATE_POD_LABEL } from "./boxPodTemplate.ts";
import type { KubernetesBackend } from "./kubernetesBackend.ts";
import type { BoxTemplateManifest } from "./tests/boxTemplate.ts";
import { kubeBoxWorld, SANDBOXES, type KubeBoxWorld } from "./tests/kubeBoxWorld.ts";

let w: KubeBoxWorld;
let backend: KubernetesBackend;

beforeAll(async () => {
  w = await kubeBoxWorld();
  backend = w.adapter();
});
afterAll(async () => {
  for (const box of await backend.inventory()) await backend.terminate(box.instanceId);
  await w[Symbol.asyncDispose]();
});

interface SandboxSpec {
  podTemplate: {
    metadata: { labels: Record<string, string> };
    spec: { containers: { name: string; env: { name: string; value?: string }[] }[] };
  };
  volumeClaimTemplates: { spec: { resources: { requests: { storage: string } } } }[];
}

async function sandboxSpec(name: string): Promise<SandboxSpec> {
  const sandbox = (await w.custom.getNamespacedCustomObject({ ...SANDBOXES, name })) as {
    spec: SandboxSpec;
  };
  return sandbox.spec;
}

const envOf = (spec: SandboxSpec) =>
  Object.fromEntries(
    (spec.podTemplate.spec.containers.find((c) => c.name === "boxd")?.env ?? []).map((e) => [
      e.name,
      e.value,
    ]),
  );

async function refusal(promise: Promise<unknown>): Promise<BackendError> {
  const error = await promise.then(
    () => new Error("the create succeeded"),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BackendError);
  return error as BackendError;
}

describe("the SandboxTemplate a box is made from", () => {
  it("is read at every create: the admin's parts run in the box, and a changed template reaches only the next box", async () => {
    await w.applyTemplate("tuned", (manifest) => {
      const [boxd] = manifest.spec.podTemplate.spec.containers;
      return {
        ...manifest,
        spec: {
          ...manifest.spec,
          podTemplate: {
            metadata: { labels: { team: "ml" } },
            spec: {
              containers: [{ ...boxd, env: [{ name: "LANG", value: "C.UTF-8" }] }],
            },
          },
        },
      };
    });
    const profile = { ...w.profile, template: "tuned" };
    const first = await backend.create({ metadata: w.metadata(), profile });
    const box = await backend.ready(first.instanceId, { timeoutMs: 20_000 });
    expect((await box.exec({ argv: ["true"] })).exitCode).toBe(0);
    const firstSpec = await sandboxSpec(first.instanceId);
    expect(firstSpec.podTemplate.metadata.labels).toEqual({
      team: "ml",
      [TEMPLATE_POD_LABEL]: "tuned",
    });
    expect(envOf(firstSpec)).toMatchObject({ LANG: "C.UTF-8", BOXD_INSTANCE_ID: first.instanceId });
    expect(firstSpec.volumeClaimTemplates[0]?.spec.resources.requests.storage).toBe("10Gi");

    // The admin grows the disk; the box made before keeps what it was made with.
    await w.custom.patchNamespacedCustomObject({
      group: "extensions.agents.x-k8s.io",
      version: "v1beta1",
      namespace: "default",
      plural: "sandboxtemplates",
      name: "tuned",
      body: [
        {
          op: "replace",
          path: "/spec/volumeClaimTemplates/0/spec/resources/requests/storage",
          value: "20Gi",
        },
      ],
    });
    const second = await backend.create({ metadata: w.metadata(), profile });
    expect(
      (await sandboxSpec(second.instanceId)).volumeClaimTemplates[0]?.spec.resources.requests
        .storage,
    ).toBe("20Gi");
    expect(
      (await sandboxSpec(first.instanceId)).volumeClaimTemplates[0]?.spec.resources.requests
        .storage,
    ).toBe("10Gi");
    await backend.terminate(first.instanceId);
    await backend.terminate(second.instanceId);
  });

  const unusable: readonly {
    readonly why: string;
    readonly name: string;
    readonly edit?: (manifest: BoxTemplateManifest) => BoxTemplateManifest;
    readonly message: RegExp;
  }[] = [
    {
      why: "does not exist",
      name: "absent",
      message: /SandboxTemplate absent does not exist in namespace default/,
    },
    {
      why: "has no boxd container",
      name: "no-boxd",
      edit: (manifest) => ({
        ...manifest,
        spec: {
          ...manifest.spec,
          podTemplate: { spec: { containers: [{ name: "main", image: "busybox" }] } },
        },
      }),
      message: /SandboxTemplate no-boxd has no container named boxd/,
    },
    {
      why: "claims no workspace disk",
      name: "no-disk",
      edit: (manifest) => ({ ...manifest, spec: { ...manifest.spec, volumeClaimTemplates: [] } }),
      message: /SandboxTemplate no-disk claims no disk named workspace/,
    },
  ];
  it.each(unusable)(
    "that $why refuses the create as invalid, naming what to fix, with nothing made",
    async ({ name, edit, message }) => {
      if (edit !== undefined) await w.applyTemplate(name, edit);
      const before = w.sim.requests.filter({ verb: "create" }).length;
      const error = await refusal(
        backend.create({ metadata: w.metadata(), profile: { ...w.profile, template: name } }),
      );
      expect(error.code).toBe("invalid");
      expect(error.message).toMatch(message);
      expect(w.sim.requests.filter({ verb: "create" }).slice(before)).toEqual([]);
    },
  );
});
