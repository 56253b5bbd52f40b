/**
 * The SandboxTemplate a box is made from (BERTH_KUBE_TEMPLATE): read at every create, so what
 * a cluster's admin puts in it (resources, node selection, security context, sidecars, the disk's
 * size and class) is what the next box runs. Only the parts Berth builds on are typed; the pod
 * spec and the claim specs stay opaque (spec/kubernetes.md §1.3).
 */
import { z } from "zod";
import type { VolumeClaimTemplate } from "./allocation.ts";
import type { PodTemplate } from "./executionProfile.ts";
import type { KubeClient } from "./kubeClient.ts";
import { backendInvalid } from "./kubeBackendErrors.ts";
import { KubeError } from "./kubeErrors.ts";
import type { CustomKind } from "./kubeObjects.ts";
import type { Operation } from "./operation.ts";

/** agent-sandbox's SandboxTemplate (extensions group; Berth only reads it). */
export const SANDBOX_TEMPLATE: CustomKind = {
  group: "extensions.agents.x-k8s.io",
  version: "v1beta1",
  plural: "sandboxtemplates",
  kind: "SandboxTemplate",
};

/** What a box is made from: the template's pod and its disks, as the cluster holds them. */
export interface BoxTemplate {
  readonly name: string;
  readonly podTemplate: PodTemplate;
  readonly volumeClaimTemplates: readonly VolumeClaimTemplate[];
}

const jsonObject = z.record(z.string(), z.json());
const stringMap = z.record(z.string(), z.string());

const templateSpecSchema = z.looseObject({
  podTemplate: z.looseObject({
    metadata: z
      .looseObject({ labels: stringMap.optional(), annotations: stringMap.optional() })
      .optional(),
    spec: jsonObject,
  }),
  volumeClaimTemplates: z
    .array(
      z.looseObject({ metadata: z.looseObject({ name: z.string().min(1) }), spec: jsonObject }),
    )
    .optional(),
});

/**
 * The named template, or `invalid` (not retryable: the next create fails the same way until an
 * admin applies or fixes it) when the namespace has none, or one Berth cannot build a box from.
 */
export async function readBoxTemplate(
  client: KubeClient,
  op: Operation,
  name: string,
): Promise<BoxTemplate> {
  let object;
  try {
    object = await client.get(op, { kind: SANDBOX_TEMPLATE, name });
  } catch (error) {
    if (error instanceof KubeError && error.kind === "gone") {
      throw backendInvalid(
        `SandboxTemplate ${name} does not exist in namespace ${client.namespace}: apply Berth's (deploy/kubernetes/sandbox-template.yaml) or set BERTH_KUBE_TEMPLATE to one that exists`,
      );
    }
    throw error;
  }
  const spec = templateSpecSchema.safeParse(object.spec);
  if (!spec.success) {
    throw backendInvalid(
      `SandboxTemplate ${name} has no pod to make a box from (spec.podTemplate.spec): ${spec.error.issues[0]?.message ?? ""}`,
    );
  }
  const { podTemplate, volumeClaimTemplates = [] } = spec.data;
  return {
    name,
    podTemplate: {
      ...(podTemplate.metadata === undefined
        ? {}
        : {
            metadata: {
              ...(podTemplate.metadata.labels === undefined
                ? {}
                : { labels: podTemplate.metadata.labels }),
              ...(podTemplate.metadata.annotations === undefined
                ? {}
                : { annotations: podTemplate.metadata.annotations }),
            },
          }),
      spec: podTemplate.spec,
    },
    volumeClaimTemplates: volumeClaimTemplates.map((claim) => ({
      metadata: { name: claim.metadata.name },
      spec: claim.spec,
    })),
  };
}
