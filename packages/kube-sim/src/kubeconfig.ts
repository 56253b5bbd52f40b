/** The kubeconfig that points kubectl and client-node at the simulator. */
import { dump } from "js-yaml";

/**
 * A kubeconfig for a plain-HTTP server: client-node 1.1+ refuses `http://` unless
 * `insecure-skip-tls-verify` is set (§1, C8). The token is never checked.
 */
export function kubeConfigYaml(url: string, namespace = "default"): string {
  return dump({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "kube-sim", cluster: { server: url, "insecure-skip-tls-verify": true } }],
    users: [{ name: "kube-sim", user: { token: "kube-sim" } }],
    contexts: [{ name: "kube-sim", context: { cluster: "kube-sim", user: "kube-sim", namespace } }],
    "current-context": "kube-sim",
    preferences: {},
  });
}
