/** What the fake kubelet tells a container about its pod: its env and the downward API's values. */
import { list, record, spec, str } from "../controller/fields.ts";
import type { KubeObject } from "../objects.ts";
import { meta } from "../objects.ts";
import { secretData } from "../secretStrategy.ts";
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

/** A container's env, or why the kubelet cannot create the container (CreateContainerConfigError). */
export type ContainerEnv =
  { kind: "env"; env: Record<string, string> } | { kind: "configError"; message: string };

type SecretLookup = (name: string) => KubeObject | undefined;

/**
 * A `secretKeyRef`'s value as `makeEnvironmentVariables` (pkg/kubelet/kubelet_pods.go) resolves
 * it: the decoded bytes; a missing Secret or key is skipped when `optional`, else it is the error
 * the kubelet reports (the secret manager's NotFound, or its own "couldn't find key" text).
 */
function secretKeyValue(
  ref: KubeObject,
  namespace: string,
  secret: SecretLookup,
): { value: string | undefined } | { error: string } {
  const name = str(ref.name) ?? "";
  const key = str(ref.key) ?? "";
  const optional = ref.optional === true;
  const found = secret(name);
  if (found === undefined)
    return optional ? { value: undefined } : { error: `secret "${name}" not found` };
  const bytes = secretData(found).get(key);
  if (bytes === undefined) {
    return optional
      ? { value: undefined }
      : { error: `couldn't find key ${key} in Secret ${namespace}/${name}` };
  }
  return { value: bytes.toString("utf8") };
}

/**
 * A container's env: `base`, the declared `env` (a `value`, a downward-API `fieldRef`, or a
 * `secretKeyRef`), `POD_IP`, and each mounted volume's real folder as `KUBE_SIM_VOLUME_<NAME>`.
 * The first reference that cannot be resolved makes it a config error, as in the kubelet.
 */
export function containerEnv(
  pod: KubeObject,
  container: KubeObject,
  at: {
    base: Record<string, string>;
    podIP: string;
    mounts: readonly RuntimeMount[];
    secret: SecretLookup;
  },
): ContainerEnv {
  const env = { ...at.base };
  for (const variable of list(container.env)) {
    const key = str(variable.name);
    if (key === undefined) continue;
    const from = record(variable.valueFrom);
    const fieldPath = str(record(from.fieldRef).fieldPath);
    let value: string | undefined;
    if (from.secretKeyRef !== undefined) {
      const resolved = secretKeyValue(
        record(from.secretKeyRef),
        meta(pod).namespace ?? "",
        at.secret,
      );
      if ("error" in resolved) return { kind: "configError", message: resolved.error };
      value = resolved.value;
    } else {
      value =
        fieldPath === undefined ? str(variable.value) : downwardValue(pod, fieldPath, at.podIP);
    }
    if (value !== undefined) env[key] = value;
  }
  env.POD_IP = at.podIP;
  for (const mount of at.mounts) env[volumeEnvName(mount.volume)] = mount.hostPath;
  return { kind: "env", env };
}
