/**
 * The `/scale` subresource (§4.7, MAY): an `autoscaling/v1` Scale view of a custom resource whose
 * CRD version declares one (SandboxWarmPool, v1alpha1 Sandbox). Writes set the spec replicas path
 * through the ordinary update, so preconditions and the generation bump apply.
 */
import { badRequest } from "./errors.ts";
import type { KubeObject } from "./objects.ts";
import { isObject, meta } from "./objects.ts";

export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath: string | undefined;
}

/** `.spec.replicas` → ["spec", "replicas"] */
function segments(path: string): string[] {
  return path.replace(/^\./, "").split(".");
}

function read(object: KubeObject, path: string): unknown {
  let current: unknown = object;
  for (const part of segments(path)) current = isObject(current) ? current[part] : undefined;
  return current;
}

/** The Scale of an object (at the request's version). */
export function scaleOf(object: KubeObject, paths: ScalePaths): KubeObject {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = meta(object);
  const replicas = read(object, paths.specReplicasPath);
  const current = read(object, paths.statusReplicasPath);
  const selector =
    paths.labelSelectorPath === undefined ? undefined : read(object, paths.labelSelectorPath);
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: typeof replicas === "number" ? replicas : 0 },
    status: {
      replicas: typeof current === "number" ? current : 0,
      ...(typeof selector === "string" ? { selector } : {}),
    },
  };
}

/** The object with the Scale's `spec.replicas` written to its replicas path, for the update path. */
export function applyScale(object: KubeObject, scale: KubeObject, paths: ScalePaths): KubeObject {
  const replicas = isObject(scale.spec) ? scale.spec.replicas : undefined;
  if (typeof replicas !== "number")
    throw badRequest("the Scale must set spec.replicas to a number");
  const parts = segments(paths.specReplicasPath);
  const last = parts.pop() ?? "replicas";
  let target: KubeObject = object;
  for (const part of parts) {
    if (!isObject(target[part])) target[part] = {};
    target = target[part] as KubeObject;
  }
  target[last] = replicas;
  // The Scale's resourceVersion, when given, is the precondition of the write.
  const rv = isObject(scale.metadata) ? scale.metadata.resourceVersion : undefined;
  meta(object).resourceVersion =
    typeof rv === "string" && rv !== "" ? rv : meta(object).resourceVersion;
  return object;
}
