/**
 * The SandboxTemplate reconciler (§8.4, A7): labels the template with its own name hash and, when
 * the network policy is Managed (the default), keeps the NetworkPolicy
 * `<template>-network-policy`. The policy is only stored: nothing enforces it here.
 */
import type { InProcessClient } from "../inProcessClient.ts";
import { nameHash } from "../nameHash.ts";
import type { KubeObject } from "../objects.ts";
import { jsonEqual, meta } from "../objects.ts";
import { LABEL, controllerRef, isControlledBy, isDeleting, record, spec } from "./fields.ts";

/** Where the sandbox router runs; only it may reach sandboxes by default (A7). */
const ROUTER_NAMESPACE = "agent-sandbox-system";

/** Egress anywhere except private, link-local and unique-local ranges (A7). */
const DEFAULT_EGRESS = [
  {
    to: [
      {
        ipBlock: {
          cidr: "0.0.0.0/0",
          except: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"],
        },
      },
      { ipBlock: { cidr: "::/0", except: ["fc00::/7", "fe80::/10"] } },
    ],
  },
];

const DEFAULT_INGRESS = [
  {
    from: [
      {
        podSelector: { matchLabels: { app: "sandbox-router" } },
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ROUTER_NAMESPACE } },
      },
    ],
  },
];

export class TemplateController {
  constructor(private readonly $: { client: InProcessClient }) {}

  reconcile(namespace: string, name: string): void {
    const { client } = this.$;
    const template = client.get("template", namespace, name);
    if (template === undefined || isDeleting(template)) return;
    const hash = nameHash(name);
    if (meta(template).labels?.[LABEL.templateRefHash] !== hash) {
      client.mergePatch(
        { kind: "template", namespace, name },
        { metadata: { labels: { [LABEL.templateRefHash]: hash } } },
      );
    }
    this.reconcileNetworkPolicy(template, hash);
  }

  private reconcileNetworkPolicy(template: KubeObject, hash: string): void {
    const { client } = this.$;
    const { namespace = "", name = "" } = meta(template);
    const policyName = `${name}-network-policy`;
    const existing = client.get("networkPolicy", namespace, policyName);
    const managed = (spec(template).networkPolicyManagement ?? "Managed") === "Managed";
    if (!managed) {
      if (existing !== undefined && isControlledBy(existing, template) && !isDeleting(existing))
        client.delete({ kind: "networkPolicy", namespace, name: policyName });
      return;
    }
    const custom = spec(template).networkPolicy;
    const policySpec: KubeObject = {
      podSelector: { matchLabels: { [LABEL.templateRefHash]: hash } },
      policyTypes: ["Ingress", "Egress"],
      ingress: custom === undefined ? DEFAULT_INGRESS : (record(custom).ingress ?? []),
      egress: custom === undefined ? DEFAULT_EGRESS : (record(custom).egress ?? []),
    };
    if (existing === undefined) {
      client.create("networkPolicy", namespace, {
        apiVersion: "networking.k8s.io/v1",
        kind: "NetworkPolicy",
        metadata: { name: policyName, ownerReferences: [controllerRef(template)] },
        spec: policySpec,
      });
      return;
    }
    if (isControlledBy(existing, template) && !jsonEqual(existing.spec, policySpec)) {
      client.mergePatch(
        { kind: "networkPolicy", namespace, name: policyName },
        { spec: policySpec },
      );
    }
  }
}
