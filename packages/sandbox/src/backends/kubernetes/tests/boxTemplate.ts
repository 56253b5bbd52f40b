/**
 * Berth's SandboxTemplate (deploy/kubernetes/sandbox-template.yaml) for the kube-sim worlds: the
 * manifest an admin applies, under a test's own name, optionally edited, created over HTTP as
 * kubectl would. A box is made from the template its profile names, so every world applies one.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { load, loadAll } from "js-yaml";

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

export const WARM_POOL_FILE = join(BOX_TEMPLATE_FILE, "..", "warm-pool.yaml");

/** The two documents of deploy/kubernetes/warm-pool.yaml: the pooled template, and the pool. */
export function warmPoolManifests(): [BoxTemplateManifest, WarmPoolManifest] {
  const [template, pool] = loadAll(readFileSync(WARM_POOL_FILE, "utf8")) as [
    BoxTemplateManifest,
    WarmPoolManifest,
  ];
  return [template, pool];
}

export interface WarmPoolManifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec: { replicas: number; sandboxTemplateRef: { name: string } };
}

/**
 * Applies the warm pool's manifests as an operator would, the template as `<name>-box` running
 * `image` and the pool as `name` with `replicas` members.
 */
export async function applyWarmPool(
  kubeConfigYaml: string,
  input: { readonly name: string; readonly replicas: number; readonly image: string },
): Promise<void> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeConfigYaml);
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const [template, pool] = warmPoolManifests();
  const templateName = `${input.name}-box`;
  const at = { group: "extensions.agents.x-k8s.io", version: "v1beta1", namespace: "default" };
  const containers = template.spec.podTemplate.spec.containers.map((container) =>
    container.name === "boxd" ? { ...container, image: input.image } : container,
  );
  await api.createNamespacedCustomObject({
    ...at,
    plural: "sandboxtemplates",
    body: {
      ...template,
      metadata: { ...template.metadata, name: templateName },
      spec: {
        ...template.spec,
        podTemplate: {
          ...template.spec.podTemplate,
          spec: { ...template.spec.podTemplate.spec, containers },
        },
      },
    },
  });
  await api.createNamespacedCustomObject({
    ...at,
    plural: "sandboxwarmpools",
    body: {
      ...pool,
      metadata: { ...pool.metadata, name: input.name },
      spec: { ...pool.spec, replicas: input.replicas, sandboxTemplateRef: { name: templateName } },
    },
  });
}
