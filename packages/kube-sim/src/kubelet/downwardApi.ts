/** What the fake kubelet tells a container about its pod: the downward API's values. */
import { spec, str } from "../controller/fields.ts";
import type { KubeObject } from "../objects.ts";
import { meta } from "../objects.ts";

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
