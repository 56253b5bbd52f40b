/**
 * The kinds the simulator serves: a few core and admissionregistration kinds, described here, and
 * the agent-sandbox custom resources and CiliumNetworkPolicy, described by the schema layer from
 * their CRDs.
 */
import type { CoreStrategy } from "./coreStrategy.ts";
import type { ResourceNames } from "./errors.ts";
import type { CustomResourceType } from "./schema/index.ts";
import { loadAgentSandboxTypes, loadCiliumPolicyTypes } from "./schema/index.ts";
import { secretStrategy } from "./secretStrategy.ts";

/** One served version of a kind. */
export interface ServedVersion {
  name: string;
  /** Sent as `Warning: 299 - "<text>"` on every request to this version (§5). */
  deprecationWarning: string | undefined;
  /** The `/scale` subresource's JSON paths, where this version declares one (§4.7). */
  scale:
    | {
        specReplicasPath: string;
        statusReplicasPath: string;
        labelSelectorPath: string | undefined;
      }
    | undefined;
}

export interface ResourceType extends ResourceNames {
  listKind: string;
  singular: string;
  shortNames: string[];
  namespaced: boolean;
  versions: ServedVersion[];
  storageVersion: string;
  /** Whether `.status` lives in a `/status` subresource (and is dropped on the main endpoint). */
  statusSubresource: boolean;
  /** Whether the server maintains `metadata.generation` for this kind. */
  tracksGeneration: boolean;
  /** Field selector labels besides metadata.name and metadata.namespace (K13). */
  fieldLabels: string[];
  /** Whether DELETE answers with the deleted object instead of a Success Status (pods do). */
  returnsDeletedObject: boolean;
  /** Set for custom resources: what the schema layer needs; core kinds have no schema here. */
  custom: CustomResourceType | undefined;
  /** Set for the built-in kinds whose decoding and validation are modelled (Secret). */
  core: CoreStrategy | undefined;
}

/** The field labels of core/v1 Events (K13: `pkg/apis/core/v1/conversion.go`), minus `source`. */
const EVENT_FIELDS = [
  "involvedObject.kind",
  "involvedObject.namespace",
  "involvedObject.name",
  "involvedObject.uid",
  "involvedObject.apiVersion",
  "involvedObject.resourceVersion",
  "involvedObject.fieldPath",
  "reason",
  "reportingComponent",
  "type",
];

const POD_FIELDS = [
  "spec.nodeName",
  "spec.restartPolicy",
  "spec.schedulerName",
  "spec.serviceAccountName",
  "spec.hostNetwork",
  "status.phase",
  "status.podIP",
  "status.podIPs",
  "status.nominatedNodeName",
];

function core(
  names: Pick<ResourceType, "kind" | "plural" | "shortNames"> & Partial<ResourceType>,
): ResourceType {
  return {
    group: "",
    listKind: `${names.kind}List`,
    singular: names.kind.toLowerCase(),
    namespaced: true,
    versions: [{ name: "v1", deprecationWarning: undefined, scale: undefined }],
    storageVersion: "v1",
    statusSubresource: false,
    tracksGeneration: false,
    fieldLabels: [],
    returnsDeletedObject: false,
    custom: undefined,
    core: undefined,
    ...names,
  };
}

function admissionKind(kind: string, plural: string): ResourceType {
  return {
    ...core({ kind, plural, shortNames: [] }),
    group: "admissionregistration.k8s.io",
    namespaced: false,
    tracksGeneration: true,
  };
}

function fromCrd(crd: CustomResourceType): ResourceType {
  const storage = crd.versions.find((version) => version.name === crd.storageVersion);
  return {
    group: crd.group,
    kind: crd.kind,
    plural: crd.plural,
    listKind: crd.listKind,
    singular: crd.singular,
    shortNames: crd.shortNames,
    namespaced: crd.namespaced,
    versions: crd.versions
      .filter((version) => version.served)
      .map((version) => ({
        name: version.name,
        deprecationWarning: version.deprecated ? version.deprecationWarning : undefined,
        scale: version.subresources.scale,
      })),
    storageVersion: crd.storageVersion,
    statusSubresource: storage?.subresources.status ?? false,
    tracksGeneration: true,
    fieldLabels: [],
    returnsDeletedObject: false,
    custom: crd,
    core: undefined,
  };
}

let cached: ResourceType[] | undefined;

/** All served kinds, core first. Parsing the CRDs is slow, so one process does it once. */
export function builtinResourceTypes(): ResourceType[] {
  cached ??= [
    core({
      kind: "Pod",
      plural: "pods",
      shortNames: ["po"],
      statusSubresource: true,
      tracksGeneration: true,
      fieldLabels: POD_FIELDS,
      returnsDeletedObject: true,
    }),
    core({ kind: "Service", plural: "services", shortNames: ["svc"], statusSubresource: true }),
    core({
      kind: "PersistentVolumeClaim",
      plural: "persistentvolumeclaims",
      shortNames: ["pvc"],
      statusSubresource: true,
    }),
    core({ kind: "ConfigMap", plural: "configmaps", shortNames: ["cm"] }),
    // Decoded and validated like the real kind: base64 data, stringData, immutable (secretStrategy.ts).
    core({
      kind: "Secret",
      plural: "secrets",
      shortNames: [],
      fieldLabels: ["type"],
      core: secretStrategy,
    }),
    // Stored only: the kubelet records FailedMount and CreateContainerConfigError events in them.
    core({ kind: "Event", plural: "events", shortNames: ["ev"], fieldLabels: EVENT_FIELDS }),
    core({ kind: "Namespace", plural: "namespaces", shortNames: ["ns"], namespaced: false }),
    // Stored only: the SandboxTemplate controller writes one per template (§8.4).
    {
      ...core({ kind: "NetworkPolicy", plural: "networkpolicies", shortNames: ["netpol"] }),
      group: "networking.k8s.io",
      tracksGeneration: true,
    },
    // Stored only (nothing authorizes requests here): so the RBAC a product ships for a cluster
    // can be applied to the simulator next to its other manifests.
    core({ kind: "ServiceAccount", plural: "serviceaccounts", shortNames: ["sa"] }),
    {
      ...core({ kind: "Role", plural: "roles", shortNames: [] }),
      group: "rbac.authorization.k8s.io",
    },
    {
      ...core({ kind: "RoleBinding", plural: "rolebindings", shortNames: [] }),
      group: "rbac.authorization.k8s.io",
    },
    admissionKind("ValidatingAdmissionPolicy", "validatingadmissionpolicies"),
    admissionKind("ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings"),
    ...loadAgentSandboxTypes().map(fromCrd),
    // From a subset of Cilium's CRD (crds/cilium-v2-subset): the egress policies of §10.
    ...loadCiliumPolicyTypes().map(fromCrd),
  ];
  return cached;
}

/** `<group>/<version>`, or just the version for the core group. */
export function groupVersion(type: ResourceNames, version: string): string {
  return type.group === "" ? version : `${type.group}/${version}`;
}

/** Looks kinds up by group and plural, the way request paths name them. */
export class ResourceRegistry {
  private readonly byPath = new Map<string, ResourceType>();

  constructor(readonly types: ResourceType[]) {
    for (const type of types) this.byPath.set(`${type.group}/${type.plural}`, type);
  }

  find(group: string, version: string, plural: string): ResourceType | undefined {
    const type = this.byPath.get(`${group}/${plural}`);
    return type?.versions.some((served) => served.name === version) ? type : undefined;
  }

  namespaces(): ResourceType {
    const type = this.byPath.get("/namespaces");
    if (type === undefined) throw new Error("namespaces are always served");
    return type;
  }
}
