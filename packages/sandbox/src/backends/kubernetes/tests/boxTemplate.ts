/**
 * Berth's SandboxTemplate (deploy/kubernetes/sandbox-template.yaml) for the kube-sim worlds: the
 * manifest an admin applies, under a test's own name, optionally edited, created over HTTP as
 * kubectl would. A box is made from the template its profile names, so every world applies one.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { load } from "js-yaml";

export const BOX_TEMPLATE_FILE = join(
  import.meta.dirname,
  ...["..", "..", "..", "..", "..", ".."],
  "deploy",
  "kubernetes",
  "sandbox-template.yaml",
);

/** The manifest's shape, as far as tests edit it. */
export interface BoxTemplateManifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    podTemplate: {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec: { containers: Record<string, unknown>[] } & Record<string, unknown>;
    };
    volumeClaimTemplates?: { metadata: { name: string }; spec: Record<string, unknown> }[];
  } & Record<string, unknown>;
}

/** The deploy manifest, named `name`. */
export function boxTemplateManifest(name: string): BoxTemplateManifest {
  const manifest = load(readFileSync(BOX_TEMPLATE_FILE, "utf8")) as BoxTemplateManifest;
  return { ...manifest, metadata: { ...manifest.metadata, name } };
}

/** Creates the template `name` in the kubeconfig's cluster (namespace `default`). */
export async function applyBoxTemplate(
  kubeConfigYaml: string,
  name: string,
  edit: (manifest: BoxTemplateManifest) => BoxTemplateManifest = (manifest) => manifest,
): Promise<void> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeConfigYaml);
  await kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: "extensions.agents.x-k8s.io",
    version: "v1beta1",
    namespace: "default",
    plural: "sandboxtemplates",
    body: edit(boxTemplateManifest(name)),
  });
}
