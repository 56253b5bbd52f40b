/**
 * Where the Kubernetes backend's credentials come from: a kubeconfig file, kubeconfig text, or
 * the pod's own service account. Loading contacts nothing; client-node's KubeConfig then
 * applies authentication and TLS to every request (an in-cluster token file is re-read as it
 * rotates, an exec plugin is run again when its credential expires).
 */
import { existsSync } from "node:fs";
import { KubeConfig } from "@kubernetes/client-node";
import { isDns1123Label } from "./sandboxNames.ts";

export type KubeConfigSource =
  /** A kubeconfig file (what KUBECONFIG names). */
  | { readonly kind: "file"; readonly path: string }
  /** Kubeconfig YAML held in memory (tests, or a config passed as a secret). */
  | { readonly kind: "yaml"; readonly text: string }
  /**
   * The service account of the pod Berth runs in: KUBERNETES_SERVICE_HOST/PORT and the files
   * under /var/run/secrets/kubernetes.io/serviceaccount (`pathPrefix` moves them, for tests).
   */
  | { readonly kind: "in-cluster"; readonly pathPrefix?: string };

/** The configuration cannot be used: nothing was contacted, and no retry will change it. */
export class KubeConfigError extends Error {
  override readonly name = "KubeConfigError";
}

/** A loaded configuration: client-node's KubeConfig and the namespace Berth works in. */
export interface LoadedKubeConfig {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  /** The API server's URL (for messages and logs; it carries no credential). */
  readonly server: string;
  /** The current context's cluster name (kube-sim's is `kube-sim`: its boxes are unisolated). */
  readonly cluster: string;
}

const SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";

/**
 * Loads a configuration and checks what can be checked without a request: a current context,
 * a server URL that parses, a namespace that is a DNS-1123 label, and for in-cluster a token file.
 *
 * @param source where the credentials come from
 * @param namespace overrides the context's namespace (else the context's, else `default`)
 * @throws KubeConfigError
 */
export function loadKubeConfig(source: KubeConfigSource, namespace?: string): LoadedKubeConfig {
  const kubeConfig = new KubeConfig();
  try {
    switch (source.kind) {
      case "file":
        kubeConfig.loadFromFile(source.path);
        break;
      case "yaml":
        kubeConfig.loadFromString(source.text);
        break;
      case "in-cluster": {
        const prefix = source.pathPrefix ?? "";
        if (!existsSync(`${prefix}${SERVICE_ACCOUNT_TOKEN}`)) {
          throw new KubeConfigError(
            `in-cluster configuration: no service account token at ${prefix}${SERVICE_ACCOUNT_TOKEN} (is Berth running in a pod with a service account?)`,
          );
        }
        kubeConfig.loadFromCluster(prefix);
        break;
      }
    }
  } catch (error) {
    if (error instanceof KubeConfigError) throw error;
    // The parser's message may quote the file, credentials included: name the source only.
    throw new KubeConfigError(`cannot load the kubeconfig (${describeSource(source)})`, {
      cause: error,
    });
  }
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) {
    throw new KubeConfigError(`the kubeconfig (${describeSource(source)}) has no current context`);
  }
  if (!isServerUrl(cluster.server)) {
    throw new KubeConfigError(
      source.kind === "in-cluster"
        ? "in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT do not name an API server"
        : `the kubeconfig (${describeSource(source)}) names no usable server for cluster ${cluster.name}`,
    );
  }
  const chosen =
    namespace ?? kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace?.trim();
  const resolved = chosen === undefined || chosen === "" ? "default" : chosen;
  if (!isDns1123Label(resolved)) {
    throw new KubeConfigError(`namespace ${JSON.stringify(resolved)} is not a DNS-1123 label`);
  }
  return { kubeConfig, namespace: resolved, server: cluster.server, cluster: cluster.name };
}

function isServerUrl(server: string): boolean {
  try {
    const url = new URL(server);
    // client-node writes an unset KUBERNETES_SERVICE_HOST into the URL as the word "undefined".
    const host = url.hostname;
    return (
      (url.protocol === "https:" || url.protocol === "http:") && host !== "" && host !== "undefined"
    );
  } catch {
    return false;
  }
}

function describeSource(source: KubeConfigSource): string {
  switch (source.kind) {
    case "file":
      return `file ${source.path}`;
    case "yaml":
      return "given as text";
    case "in-cluster":
      return "in-cluster";
  }
}
