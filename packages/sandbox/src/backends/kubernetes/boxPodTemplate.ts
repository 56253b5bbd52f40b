/**
 * The pod a Kubernetes box runs: its SandboxTemplate's pod (sandboxTemplate.ts) with what makes
 * it this box overlaid on the container named `boxd` — the image of the execution profile,
 * boxd's address, instance id, token and pod uid, the workspace and token mounts, the readiness
 * probe Berth's waits rely on — and no service-account token in the pod. Berth's values win over the template's (as its template label
 * wins over the template's labels); everything else of the template is kept as written. The
 * result depends only on the template, the profile and the allocation, so a successor building
 * it again gets byte-identical JSON — the pod-template hash and the execution-profile
 * fingerprint depend on that.
 */
import { streamRoutes } from "@berth/box-protocol";
import type { ExecutionProfile } from "../../spawner/executionProfile.ts";
import type { VolumeClaimTemplate } from "./allocation.ts";
import { BERTH_KEY_PREFIX } from "./berthKeys.ts";
import type { PodTemplate } from "./executionProfile.ts";
import { TOKEN_KEY, tokenSecretName } from "./boxTokenSecret.ts";
import { POOL_KEY_KEY, POOL_KEY_SECRET } from "./poolKeySecret.ts";
import type { JsonValue } from "./kubeObjects.ts";
import { backendInvalid } from "./kubeBackendErrors.ts";
import type { BoxTemplate } from "./sandboxTemplate.ts";

/** The workspace disk's claim template: the template must have one, as it outlives a suspend. */
export const WORKSPACE_VOLUME = "workspace";
/** Where boxd finds the workspace inside the container. */
export const WORKSPACE_MOUNT_PATH = "/workspace";
/** The container Berth makes the box's boxd: what a kubelet runtime (and an operator) looks for. */
export const BOXD_CONTAINER = "boxd";
/** The pod label naming the template a box was made from. */
export const TEMPLATE_POD_LABEL = `${BERTH_KEY_PREFIX}template`;

/** The volume of the token Secret, and where boxd finds it. */
export const TOKEN_VOLUME = "box-token";
export const TOKEN_MOUNT_PATH = "/var/run/berth";
/** A warm-pool pod's volume of the pool key (poolKeySecret.ts), and where boxd finds it. */
export const POOL_KEY_VOLUME = "warm-pool-key";
export const POOL_KEY_MOUNT_PATH = "/var/run/berth-pool";

export interface BoxPodSettings {
  readonly template: BoxTemplate;
  readonly profile: ExecutionProfile;
  /**
   * Whose pod it is: one box's (its Sandbox's name is boxd's instance id, and its own Secret
   * holds the token), or a warm pool's (boxd starts unbound with the pool key, and the claim
   * that takes the pod binds it to a box: warmClaim.ts).
   */
  readonly identity:
    { readonly kind: "box"; readonly sandboxName: string } | { readonly kind: "pool" };
  /** The TCP port boxd listens on at the pod's IP. */
  readonly boxdPort: number;
}

type JsonObject = { readonly [key: string]: JsonValue };

export function boxPodTemplate(settings: BoxPodSettings): PodTemplate {
  const { profile, template } = settings;
  const spec = template.podTemplate.spec;
  const containers = objectsOf(spec.containers);
  if (!containers.some((container) => container.name === BOXD_CONTAINER)) {
    throw backendInvalid(
      `SandboxTemplate ${template.name} has no container named ${BOXD_CONTAINER}: Berth runs boxd in it`,
    );
  }
  const own = identityParts(settings.identity);
  const volumes = without(spec.volumes, [own.volume]);
  return {
    metadata: {
      ...template.podTemplate.metadata,
      labels: { ...template.podTemplate.metadata?.labels, [TEMPLATE_POD_LABEL]: profile.template },
    },
    spec: {
      ...spec,
      ...(profile.runtimeClassName === undefined
        ? {}
        : { runtimeClassName: profile.runtimeClassName }),
      // A box is hostile: no credential of the cluster's API in it, whatever the template says.
      automountServiceAccountToken: false,
      containers: containers.map((container) =>
        container.name === BOXD_CONTAINER ? boxdContainer(container, settings) : container,
      ),
      volumes: [...volumes, own.volume],
    },
  };
}

interface IdentityParts {
  readonly env: readonly JsonObject[];
  readonly mount: JsonObject;
  readonly volume: JsonObject;
}

/** How boxd learns whose it is: a box's own token, or the pool key it is bound with. */
function identityParts(identity: BoxPodSettings["identity"]): IdentityParts {
  switch (identity.kind) {
    case "box":
      return {
        env: [
          { name: "BOXD_INSTANCE_ID", value: identity.sandboxName },
          // The token from the Secret's file (never in the pod spec).
          { name: "BOXD_TOKEN_FILE", value: `${TOKEN_MOUNT_PATH}/${TOKEN_KEY}` },
        ],
        mount: { name: TOKEN_VOLUME, mountPath: TOKEN_MOUNT_PATH, readOnly: true },
        // The token volume names each box's own Secret, so only Berth can add it.
        volume: {
          name: TOKEN_VOLUME,
          secret: { secretName: tokenSecretName(identity.sandboxName), defaultMode: 0o400 },
        },
      };
    case "pool":
      return {
        env: [{ name: "BOXD_POOL_KEY_FILE", value: `${POOL_KEY_MOUNT_PATH}/${POOL_KEY_KEY}` }],
        mount: { name: POOL_KEY_VOLUME, mountPath: POOL_KEY_MOUNT_PATH, readOnly: true },
        // Readable by its owner only: kept from the box's commands when they run as another user
        // (BOXD_COMMAND_USER); otherwise a box can read it (README, "Warm pools").
        volume: {
          name: POOL_KEY_VOLUME,
          secret: { secretName: POOL_KEY_SECRET, defaultMode: 0o400 },
        },
      };
  }
}

/** The template's `boxd` container with Berth's parts in place of any it had of the same name. */
function boxdContainer(container: JsonObject, settings: BoxPodSettings): JsonObject {
  const { profile } = settings;
  const own = identityParts(settings.identity);
  const env: JsonObject[] = [
    { name: "BOXD_HOST", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
    { name: "BOXD_PORT", value: String(settings.boxdPort) },
    { name: "BOXD_ROOT", value: WORKSPACE_MOUNT_PATH },
    ...own.env,
    // The pod's uid, which clients must name, so a reused pod IP never serves another box's
    // callers (and which a pool's bind is proven over).
    { name: "BOXD_POD_UID", valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } },
  ];
  const mounts: JsonObject[] = [
    { name: WORKSPACE_VOLUME, mountPath: WORKSPACE_MOUNT_PATH },
    own.mount,
  ];
  const ports: JsonObject[] = [{ name: "boxd", containerPort: settings.boxdPort }];
  const resources: { [key: string]: JsonValue } = { ...objectOf(container.resources) };
  if (profile.resources.requests !== undefined) resources.requests = profile.resources.requests;
  if (profile.resources.limits !== undefined) resources.limits = profile.resources.limits;
  return {
    ...container,
    image: profile.image,
    ports: [...without(container.ports, ports), ...ports],
    env: [...without(container.env, env), ...env],
    // Ready once boxd answers (its health check needs no token), not once it was started.
    readinessProbe: { httpGet: { path: streamRoutes.health, port: "boxd" }, periodSeconds: 1 },
    ...(Object.keys(resources).length === 0 ? {} : { resources }),
    volumeMounts: [...without(container.volumeMounts, mounts), ...mounts],
  };
}

/** The entries of a template's list that Berth's own entries do not replace (by name). */
function without(list: JsonValue | undefined, own: readonly JsonObject[]): JsonObject[] {
  const names = new Set(own.map((entry) => entry.name));
  return objectsOf(list).filter((entry) => !names.has(entry.name));
}

function objectsOf(value: JsonValue | undefined): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function objectOf(value: JsonValue | undefined): JsonObject {
  return value !== undefined && isObject(value) ? value : {};
}

function isObject(value: JsonValue): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The box's disks: the template's claim templates, verbatim. One must be the workspace, which
 * Berth mounts, checks the owner of and keeps over a suspend.
 */
export function boxVolumeClaims(template: BoxTemplate): readonly VolumeClaimTemplate[] {
  if (!template.volumeClaimTemplates.some((claim) => claim.metadata.name === WORKSPACE_VOLUME)) {
    throw backendInvalid(
      `SandboxTemplate ${template.name} claims no disk named ${WORKSPACE_VOLUME} (spec.volumeClaimTemplates): a box's workspace must outlive its pod`,
    );
  }
  return template.volumeClaimTemplates;
}
