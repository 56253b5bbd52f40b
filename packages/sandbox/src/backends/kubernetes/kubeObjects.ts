/**
 * The kinds Berth reads and writes, and the deliberately partial shapes it reads them as: only
 * the fields a decision depends on are typed; everything else (a pod spec above all) is carried
 * as opaque JSON. Answers are checked at the edge so a malformed one fails loudly, once.
 */
import { z } from "zod";

/** A custom resource kind served under `/apis/<group>/<version>/namespaces/<ns>/<plural>`. */
export interface CustomKind {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
}

/** agent-sandbox's Sandbox (v1beta1, the version both CRD groups serve). */
export const SANDBOX: CustomKind = {
  group: "agents.x-k8s.io",
  version: "v1beta1",
  plural: "sandboxes",
  kind: "Sandbox",
};

/** agent-sandbox's SandboxClaim: how a box is taken from a warm pool (warmClaim.ts). */
export const SANDBOX_CLAIM: CustomKind = {
  group: "extensions.agents.x-k8s.io",
  version: "v1beta1",
  plural: "sandboxclaims",
  kind: "SandboxClaim",
};

/** agent-sandbox's SandboxWarmPool: an operator's pool of started Sandboxes (read only). */
export const SANDBOX_WARM_POOL: CustomKind = {
  group: "extensions.agents.x-k8s.io",
  version: "v1beta1",
  plural: "sandboxwarmpools",
  kind: "SandboxWarmPool",
};

/** `<group>/<version>`, as `apiVersion` spells it. */
export function apiVersionOf(kind: CustomKind): string {
  return `${kind.group}/${kind.version}`;
}

/** Any JSON value: what opaque parts of an object (a pod template's spec) are. */
export type JsonValue =
  string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

const stringMap = z.record(z.string(), z.string());

/** The metadata fields Berth reads (spec/kubernetes.md §1.2, with [v27]'s generation and owners). */
export const objectMetaSchema = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().optional(),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().nullish(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
  ownerReferences: z
    .array(z.looseObject({ uid: z.string().optional(), controller: z.boolean().optional() }))
    .optional(),
});
export type ObjectMeta = z.infer<typeof objectMetaSchema>;

/** An object as the API answers it: metadata typed, the rest opaque. */
export const kubeObjectSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema,
});
export type KubeObject = z.infer<typeof kubeObjectSchema> & {
  readonly spec?: unknown;
  readonly status?: unknown;
};

/** A list answer: its items. */
export const kubeListSchema = z.looseObject({
  items: z.array(kubeObjectSchema),
});

/**
 * The few fields of a pod Berth reads. client-node answers core kinds as typed models (its
 * timestamps are Dates), so the pod has its own schema rather than the custom kinds' one.
 */
export const podSchema = z.looseObject({
  metadata: z.looseObject({
    name: z.string(),
    uid: z.string().optional(),
    deletionTimestamp: z.union([z.string(), z.date()]).nullish(),
  }),
  status: z
    .looseObject({
      phase: z.string().optional(),
      podIP: z.string().optional(),
      conditions: z
        .array(
          z.looseObject({
            type: z.string(),
            status: z.string(),
            reason: z.string().optional(),
            message: z.string().optional(),
          }),
        )
        .optional(),
      containerStatuses: z
        .array(
          z.looseObject({
            state: z
              .looseObject({
                waiting: z
                  .looseObject({ reason: z.string().optional(), message: z.string().optional() })
                  .optional(),
              })
              .optional(),
          }),
        )
        .optional(),
    })
    .optional(),
});

/** The few fields of a PersistentVolumeClaim Berth reads: who controls it. */
export const claimSchema = z.looseObject({
  metadata: z.looseObject({
    name: z.string(),
    uid: z.string().optional(),
    ownerReferences: z
      .array(z.looseObject({ uid: z.string().optional(), controller: z.boolean().optional() }))
      .optional(),
  }),
});

/** A claim as Berth reads it: its controller's uid decides whose it is. */
export interface ClaimReading {
  readonly name: string;
  readonly uid: string | undefined;
  readonly controllerUid: string | undefined;
}

/** A pod as Berth reads it: who it is, whether it is going, and where it answers. */
export interface PodReading {
  readonly name: string;
  readonly uid: string | undefined;
  /** It has a deletionTimestamp: terminating, never bound. */
  readonly deleting: boolean;
  /** Pending, Running, Succeeded, Failed or Unknown. */
  readonly phase: string | undefined;
  readonly podIP: string | undefined;
  /** The scheduler's message when PodScheduled is False for Unschedulable. */
  readonly unschedulable: string | undefined;
  /** Each waiting container's reason (ErrImagePull, CreateContainerConfigError, …). */
  readonly waiting: readonly { readonly reason: string; readonly message: string | undefined }[];
}

/** The few fields of a Secret Berth reads: who controls it, and its data. */
export const secretSchema = z.looseObject({
  metadata: z.looseObject({
    name: z.string(),
    ownerReferences: z
      .array(z.looseObject({ uid: z.string().optional(), controller: z.boolean().optional() }))
      .optional(),
  }),
  data: z.record(z.string(), z.string()).optional(),
});

/** A Secret as Berth reads it. Its data never goes into a message or a log. */
export interface SecretReading {
  readonly name: string;
  readonly controllerUid: string | undefined;
  /** base64 values, by key. */
  readonly data: Readonly<Record<string, string>>;
}
