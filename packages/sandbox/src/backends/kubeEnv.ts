/**
 * The Kubernetes backend's settings (README "Backends"): where the cluster's credentials come
 * from, the namespace boxes live in, and the SandboxTemplate they are made from. Validated once,
 * with the rest of the sandbox env (env.ts).
 */
import { z } from "zod";
import type { BackendKind } from "../spawner/backendRegistry.ts";
import type { ExecutionProfile } from "../spawner/executionProfile.ts";
import type { KubeConfigSource } from "./kubernetes/kubeConfig.ts";

/** The image Berth's SandboxTemplate runs boxd from (on kube-sim: this checkout's boxd). */
const DEFAULT_KUBE_IMAGE = "berth-boxd";
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const kubeEnvShape = {
  /**
   * A kubeconfig file (one path; its current context is used). Unset: the service account of
   * the pod Berth runs in.
   */
  KUBECONFIG: z.string().min(1).optional(),
  /** The namespace boxes live in; unset: the kubeconfig context's (or the pod's own), else default. */
  BERTH_KUBE_NAMESPACE: z
    .string()
    .max(63)
    .regex(DNS1123_LABEL, { error: "must be a DNS-1123 label, e.g. berth" })
    .optional(),
  /**
   * The SandboxTemplate boxes are made from. Setting it configures the Kubernetes backend (beside
   * local); BERTH_BACKEND=kubernetes requires it.
   */
  BERTH_KUBE_TEMPLATE: z.string().min(1).max(253).optional(),
  /**
   * An operator's SandboxWarmPool in the namespace (deploy/kubernetes/warm-pool.yaml): boxes are
   * claimed from it while it has a Ready member, and made from BERTH_KUBE_TEMPLATE when not.
   */
  BERTH_KUBE_WARM_POOL: z
    .string()
    .max(253)
    .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, {
      error: "must be a SandboxWarmPool's name (a DNS-1123 subdomain), e.g. berth-pool",
    })
    .optional(),
  /** The image boxd runs from in a box's pod. */
  BERTH_KUBE_IMAGE: z.string().min(1).max(512).default(DEFAULT_KUBE_IMAGE),
  /**
   * How the cluster isolates a box: `pod` (its container runtime's) or `none` (its pods are host
   * processes, as on kube-sim). Unset: `none` when the kubeconfig's current cluster is kube-sim's,
   * else `pod` (kubeIsolationOf).
   */
  BERTH_KUBE_ISOLATION: z.enum(["pod", "none"]).optional(),
  /** `1` lets Berth use a cluster whose boxes are unisolated (as local boxes without bubblewrap). */
  BERTH_ALLOW_UNISOLATED: z
    .string()
    .optional()
    // Unset stays unset (not false): the parsed env lists only what was set or has a default.
    .transform((value) => (value === undefined ? undefined : value === "1" || value === "true")),
};

export interface KubeEnv {
  readonly BERTH_BACKEND: BackendKind;
  readonly KUBECONFIG?: string | undefined;
  readonly BERTH_KUBE_NAMESPACE?: string | undefined;
  readonly BERTH_KUBE_TEMPLATE?: string | undefined;
  readonly BERTH_KUBE_IMAGE?: string | undefined;
  readonly BERTH_KUBE_WARM_POOL?: string | undefined;
  readonly BERTH_KUBE_ISOLATION?: "pod" | "none" | undefined;
  readonly BERTH_ALLOW_UNISOLATED?: boolean | undefined;
}

/** The cluster name kube-sim writes into its kubeconfig (packages/kube-sim/src/kubeconfig.ts). */
const KUBE_SIM_CLUSTER = "kube-sim";

/**
 * Whether the cluster's boxes are isolated, and why it is known: BERTH_KUBE_ISOLATION when set;
 * else kube-sim's kubeconfig means `none`, since its pods are host processes (a simulated cluster
 * must never show as isolated because someone forgot a setting); any other cluster, `pod`.
 */
export function kubeIsolationOf(
  env: KubeEnv,
  clusterName: string,
): { readonly isolation: "pod" | "none"; readonly why: string } {
  if (env.BERTH_KUBE_ISOLATION !== undefined)
    return {
      isolation: env.BERTH_KUBE_ISOLATION,
      why: `BERTH_KUBE_ISOLATION=${env.BERTH_KUBE_ISOLATION}`,
    };
  return clusterName === KUBE_SIM_CLUSTER
    ? { isolation: "none", why: "the cluster is kube-sim, whose pods are host processes" }
    : { isolation: "pod", why: "a cluster's pods are isolated by its container runtime" };
}

/** The Kubernetes backend is configured when it is the default, or when its template is set. */
export function kubernetesConfigured(env: KubeEnv): boolean {
  return env.BERTH_BACKEND === "kubernetes" || env.BERTH_KUBE_TEMPLATE !== undefined;
}

/** The start-time rule: the default backend must be one this configuration can build. */
export function checkKubeEnv(env: KubeEnv, context: z.RefinementCtx): void {
  if (env.BERTH_BACKEND === "kubernetes" && env.BERTH_KUBE_TEMPLATE === undefined) {
    context.addIssue({
      code: "custom",
      path: ["BERTH_KUBE_TEMPLATE"],
      message:
        "must be set when BERTH_BACKEND=kubernetes: the name of the SandboxTemplate boxes are made from",
    });
  }
}

/** Where the cluster's credentials come from: KUBECONFIG's file, else the pod's service account. */
export function kubeConfigSourceOf(env: KubeEnv): KubeConfigSource {
  return env.KUBECONFIG === undefined
    ? { kind: "in-cluster" }
    : { kind: "file", path: env.KUBECONFIG };
}

/** What a Kubernetes box runs: the configured template and image, the cluster's defaults else. */
export function kubeExecutionProfile(
  env: KubeEnv & { BERTH_KUBE_TEMPLATE: string },
): ExecutionProfile {
  return {
    template: env.BERTH_KUBE_TEMPLATE,
    image: env.BERTH_KUBE_IMAGE ?? DEFAULT_KUBE_IMAGE,
    resources: {},
  };
}
