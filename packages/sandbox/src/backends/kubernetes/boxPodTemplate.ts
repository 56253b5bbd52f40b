/**
 * The pod a Kubernetes box runs, built from its execution profile: one container, boxd, serving
 * the workspace disk on the pod's own address. Everything in it is derived from the profile and
 * the allocation, so a successor building it again gets byte-identical JSON — the pod-template
 * hash and the execution-profile fingerprint depend on that.
 */
import { streamRoutes } from "@berth/box-protocol";
import type { ExecutionProfile } from "../../spawner/executionProfile.ts";
import type { VolumeClaimTemplate } from "./allocation.ts";
import { BERTH_KEY_PREFIX } from "./berthKeys.ts";
import type { PodTemplate } from "./executionProfile.ts";
import { TOKEN_KEY, tokenSecretName } from "./boxTokenSecret.ts";
import type { JsonValue } from "./kubeObjects.ts";

/** The one volume claim template: the box's workspace, which outlives a suspend. */
export const WORKSPACE_VOLUME = "workspace";
/** Where boxd finds the workspace inside the container. */
export const WORKSPACE_MOUNT_PATH = "/workspace";
/** The container's name: what a kubelet runtime (and an operator) looks for. */
export const BOXD_CONTAINER = "boxd";
/** The pod label naming the template a box was made from. */
export const TEMPLATE_POD_LABEL = `${BERTH_KEY_PREFIX}template`;

/** The volume of the token Secret, and where boxd finds it. */
export const TOKEN_VOLUME = "box-token";
export const TOKEN_MOUNT_PATH = "/var/run/berth";

export interface BoxPodSettings {
  readonly profile: ExecutionProfile;
  /** The Sandbox's name: boxd's instance id. */
  readonly sandboxName: string;
  /** The TCP port boxd listens on at the pod's IP. */
  readonly boxdPort: number;
}

export function boxPodTemplate(settings: BoxPodSettings): PodTemplate {
  const { profile } = settings;
  const resources: { [key: string]: JsonValue } = {};
  if (profile.resources.requests !== undefined) resources.requests = profile.resources.requests;
  if (profile.resources.limits !== undefined) resources.limits = profile.resources.limits;
  const env: JsonValue[] = [
    { name: "BOXD_HOST", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
    { name: "BOXD_PORT", value: String(settings.boxdPort) },
    { name: "BOXD_INSTANCE_ID", value: settings.sandboxName },
    { name: "BOXD_ROOT", value: WORKSPACE_MOUNT_PATH },
    // The token from the Secret's file (never in the pod spec); the pod's uid, which clients
    // must name, so a reused pod IP never serves another box's callers.
    { name: "BOXD_TOKEN_FILE", value: `${TOKEN_MOUNT_PATH}/${TOKEN_KEY}` },
    { name: "BOXD_POD_UID", valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } },
  ];
  return {
    metadata: { labels: { [TEMPLATE_POD_LABEL]: profile.template } },
    spec: {
      ...(profile.runtimeClassName === undefined
        ? {}
        : { runtimeClassName: profile.runtimeClassName }),
      containers: [
        {
          name: BOXD_CONTAINER,
          image: profile.image,
          ports: [{ name: "boxd", containerPort: settings.boxdPort }],
          env,
          // Ready once boxd answers (its health check needs no token), not once it was started.
          readinessProbe: {
            httpGet: { path: streamRoutes.health, port: "boxd" },
            periodSeconds: 1,
          },
          resources,
          volumeMounts: [
            { name: WORKSPACE_VOLUME, mountPath: WORKSPACE_MOUNT_PATH },
            { name: TOKEN_VOLUME, mountPath: TOKEN_MOUNT_PATH, readOnly: true },
          ],
        },
      ],
      volumes: [
        {
          name: TOKEN_VOLUME,
          secret: { secretName: tokenSecretName(settings.sandboxName), defaultMode: 0o400 },
        },
      ],
    },
  };
}

/** The workspace disk's claim: ReadWriteOnce, of the configured size and class. */
export function workspaceClaimTemplate(disk: {
  readonly storage: string;
  readonly storageClassName?: string | undefined;
}): VolumeClaimTemplate {
  return {
    metadata: { name: WORKSPACE_VOLUME },
    spec: {
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: disk.storage } },
      ...(disk.storageClassName === undefined ? {} : { storageClassName: disk.storageClassName }),
    },
  };
}
