/**
 * Sandboxes made from a SandboxTemplate (A6, A7): the blueprint copied into a Sandbox spec, and
 * the secure defaults the extensions controllers apply.
 */
import type { KubeObject } from "../objects.ts";
import { nameHash } from "../nameHash.ts";
import { clone, meta } from "../objects.ts";
import { ANNOTATION, record, spec } from "./fields.ts";

/** `ApplySandboxSecureDefaults` (A7). */
function secureDefaults(template: KubeObject, podSpec: KubeObject): void {
  podSpec.automountServiceAccountToken ??= false;
  const templateSpec = spec(template);
  const managed = (templateSpec.networkPolicyManagement ?? "Managed") === "Managed";
  if (managed && templateSpec.networkPolicy === undefined && podSpec.dnsPolicy === undefined) {
    podSpec.dnsPolicy = "None";
    podSpec.dnsConfig = { nameservers: ["8.8.8.8", "1.1.1.1"] };
  }
}

/**
 * A Sandbox spec from the template: its pod template (labels copied into the pod template's
 * labels), volume claim templates and service flag.
 */
export function sandboxSpecFromTemplate(
  template: KubeObject,
  podLabels: Record<string, string>,
  options: { safeToEvict: boolean },
): KubeObject {
  const templateSpec = spec(template);
  const podTemplate = clone(record(templateSpec.podTemplate));
  const podMeta = record(podTemplate.metadata);
  podMeta.labels = { ...record(podMeta.labels), ...podLabels };
  const annotations = record(podMeta.annotations) as Record<string, string>;
  if (options.safeToEvict && annotations[ANNOTATION.safeToEvict] === undefined)
    annotations[ANNOTATION.safeToEvict] = "true";
  if (Object.keys(annotations).length > 0) podMeta.annotations = annotations;
  podTemplate.metadata = podMeta;
  const podSpec = record(podTemplate.spec);
  secureDefaults(template, podSpec);
  podTemplate.spec = podSpec;
  const result: KubeObject = { podTemplate };
  if (Array.isArray(templateSpec.volumeClaimTemplates))
    result.volumeClaimTemplates = clone(templateSpec.volumeClaimTemplates);
  if (typeof templateSpec.service === "boolean") result.service = templateSpec.service;
  return result;
}

export const templateName = (template: KubeObject): string => meta(template).name ?? "";

/**
 * The blueprint hash pool members carry (A6). The real controller hashes Go's JSON encoding, which
 * a TypeScript simulator cannot reproduce byte for byte, so the value is opaque (§8): it only
 * tells whether a member was made from the template's current blueprint.
 */
export function blueprintHash(template: KubeObject): string {
  const templateSpec = spec(template);
  return nameHash(
    JSON.stringify({
      podTemplate: templateSpec.podTemplate ?? null,
      volumeClaimTemplates: templateSpec.volumeClaimTemplates ?? null,
      service: templateSpec.service ?? null,
    }),
  );
}
