/** What the fake kubelet tells a container about its pod: its env and the downward API's values. */
import { list, record, spec, str } from "../controller/fields.ts";
import type { KubeObject } from "../objects.ts";
import { meta } from "../objects.ts";
import type { RuntimeMount } from "./runtimes.ts";
import { volumeEnvName } from "./runtimes.ts";

/** The one node every pod is scheduled to. */
export const NODE_NAME = "kube-sim-node";
export const HOST_IP = "127.0.0.1";

/** The downward API values a `fieldRef` may name. */
export function downwardValue(pod: KubeObject, path: string, podIP: string): string | undefined {
  const metadata = meta(pod);
  switch (path) {
    case "metadata.name":
      return metadata.name;
    case "metadata.namespace":
      return metadata.namespace;
    case "metadata.uid":
      return metadata.uid;
    case "status.podIP":
      return podIP;
    case "status.hostIP":
      return HOST_IP;
    case "spec.nodeName":
      return NODE_NAME;
    case "spec.serviceAccountName":
      return str(spec(pod).serviceAccountName) ?? "default";
    default: {
      const label = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
      if (label === null) return undefined;
      const map = label[1] === "labels" ? metadata.labels : metadata.annotations;
      return map?.[label[2] ?? ""];
    }
  }
}

/**
 * A container's env: `base`, the declared `env` with `fieldRef`s resolved, `POD_IP`, and each
 * mounted volume's real folder as `KUBE_SIM_VOLUME_<NAME>`.
 */
export function containerEnv(
  pod: KubeObject,
  container: KubeObject,
  at: { base: Record<string, string>; podIP: string; mounts: readonly RuntimeMount[] },
): Record<string, string> {
  const env = { ...at.base };
  for (const variable of list(container.env)) {
    const key = str(variable.name);
    if (key === undefined) continue;
    const fieldPath = str(record(record(variable.valueFrom).fieldRef).fieldPath);
    const value =
      fieldPath === undefined ? str(variable.value) : downwardValue(pod, fieldPath, at.podIP);
    if (value !== undefined) env[key] = value;
  }
  env.POD_IP = at.podIP;
  for (const mount of at.mounts) env[volumeEnvName(mount.volume)] = mount.hostPath;
  return env;
}
