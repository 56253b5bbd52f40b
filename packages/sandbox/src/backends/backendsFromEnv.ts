import { BackendRegistry } from "../spawner/backendRegistry.ts";
import {
  kubeConfigSourceOf,
  kubeExecutionProfile,
  kubeIsolationOf,
  kubernetesConfigured,
  type KubeEnv,
} from "./kubeEnv.ts";
import { KubeClient } from "./kubernetes/kubeClient.ts";
import { KubeConfigError, type KubeConfigSource } from "./kubernetes/kubeConfig.ts";
import { KubernetesBackend } from "./kubernetes/kubernetesBackend.ts";
import { LocalBackend } from "./local/localBackend.ts";
import type { LocalBackendOptions } from "./local/localSettings.ts";

/** The configured backends, and the local one by its own type (the worker's rotation probes it). */
export interface ConfiguredBackends {
  readonly registry: BackendRegistry;
  readonly local: LocalBackend | undefined;
  readonly kubernetes: KubernetesBackend | undefined;
}

/** What a Kubernetes backend needs beside its env: the same secret and installation as local. */
export interface KubernetesBackendSettings {
  /** Berth's secret: each box's token derives from it. */
  readonly secret: string;
  readonly installationId: () => Promise<string>;
  /** Overrides KUBECONFIG / in-cluster (tests hand kube-sim's kubeconfig as text). */
  readonly source?: KubeConfigSource;
}

/**
 * The one place api, worker and launcher build their backends. Local is configured wherever this
 * process manages local boxes (`local` given); Kubernetes wherever the env configures it
 * (kubeEnv.ts) and this process holds the secret its box tokens derive from (`kubernetes`
 * given). Without either, no backend is configured, and a lease's box call is refused as
 * backend_not_configured rather than guessed. BERTH_BACKEND itself only picks new sessions'
 * default (sessions.create).
 *
 * @throws Error naming what to set, when the cluster's configuration cannot be loaded
 */
export function backendsFromEnv(options: {
  readonly env: KubeEnv;
  readonly local: LocalBackendOptions | undefined;
  readonly kubernetes?: KubernetesBackendSettings | undefined;
}): ConfiguredBackends {
  const { env } = options;
  const local = options.local === undefined ? undefined : new LocalBackend(options.local);
  const template = env.BERTH_KUBE_TEMPLATE;
  if (!kubernetesConfigured(env) || options.kubernetes === undefined || template === undefined)
    return { registry: new BackendRegistry({ local }), local, kubernetes: undefined };
  const settings = options.kubernetes;
  const client = kubeClientFor(
    settings.source ?? kubeConfigSourceOf(env),
    env.BERTH_KUBE_NAMESPACE,
  );
  // As for local boxes without bubblewrap: never unisolated unless the operator said so.
  const { isolation, why } = kubeIsolationOf(env, client.cluster);
  if (isolation === "none" && env.BERTH_ALLOW_UNISOLATED !== true) {
    throw new Error(
      `the kubernetes backend's boxes on ${client.server} would run unisolated (${why}): set BERTH_ALLOW_UNISOLATED=1 to run them so, or point KUBECONFIG at a real cluster`,
    );
  }
  const kubernetes = new KubernetesBackend({
    client,
    installationId: settings.installationId,
    secret: settings.secret,
    isolation,
    ...(env.BERTH_KUBE_WARM_POOL === undefined ? {} : { warmPool: env.BERTH_KUBE_WARM_POOL }),
  });
  return {
    registry: new BackendRegistry(
      { local, kubernetes },
      { kubernetes: kubeExecutionProfile({ ...env, BERTH_KUBE_TEMPLATE: template }) },
    ),
    local,
    kubernetes,
  };
}

/** The cluster's client, or a start-time error that says what to set. Contacts nothing. */
function kubeClientFor(source: KubeConfigSource, namespace: string | undefined): KubeClient {
  try {
    return new KubeClient({ source, namespace });
  } catch (error) {
    if (!(error instanceof KubeConfigError)) throw error;
    const fix =
      source.kind === "in-cluster"
        ? "set KUBECONFIG to a kubeconfig file, or run Berth in a pod with a service account"
        : "set KUBECONFIG to a readable kubeconfig file with a current context";
    throw new Error(`the kubernetes backend cannot be configured: ${error.message}; ${fix}`, {
      cause: error,
    });
  }
}
