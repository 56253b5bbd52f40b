/**
 * The claim's `additionalPodMetadata` rules (§8.5, A5): label keys need a domain prefix from the
 * allowlist, and annotations may not use the Kubernetes or agent-sandbox domains, except
 * `safe-to-evict`.
 */
import { ANNOTATION } from "./fields.ts";

/** The controller's default `--allowed-label-domains`. */
const ALLOWED_LABEL_DOMAINS = ["sandbox.users.io"];
const RESERVED_ANNOTATION_DOMAINS = ["kubernetes.io", "k8s.io", "agents.x-k8s.io"];

const domainOf = (key: string): string | undefined =>
  key.includes("/") ? key.slice(0, key.indexOf("/")) : undefined;

const within = (domain: string, parent: string): boolean =>
  domain === parent || domain.endsWith(`.${parent}`);

/** What is wrong with the metadata, or undefined when it may be applied. */
export function invalidPodMetadata(metadata: {
  labels: Record<string, unknown>;
  annotations: Record<string, unknown>;
}): string | undefined {
  for (const key of Object.keys(metadata.labels)) {
    const domain = domainOf(key);
    if (domain === undefined || !ALLOWED_LABEL_DOMAINS.some((allowed) => within(domain, allowed)))
      return `label key "${key}" must have a domain prefix in ${ALLOWED_LABEL_DOMAINS.join(", ")}`;
  }
  for (const key of Object.keys(metadata.annotations)) {
    if (key === ANNOTATION.safeToEvict) continue;
    const domain = domainOf(key);
    if (domain !== undefined && RESERVED_ANNOTATION_DOMAINS.some((r) => within(domain, r)))
      return `annotation key "${key}" uses a reserved domain`;
  }
  return undefined;
}
