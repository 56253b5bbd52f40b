/**
 * The warm-pool claim → first exec figure (issue 38: p50 ≤ 1 s, agent-sandbox's own claim-latency
 * threshold). Not measured yet: the Kubernetes backend has no warm-pool option to claim through.
 * Once KubernetesBackendOptions takes one, this measures a claim from a pool kept ready on the
 * same kube-sim, through the lease and the spawner as the cold path is, and answers its p50.
 */
export function claimP50Ms(): number | "not_measured" {
  return "not_measured";
}
