/** Discovery documents (§1): what client-node's KubernetesObjectApi and kubectl read to find kinds. */
import type { ResourceRegistry, ResourceType } from "./resourceTypes.ts";
import { groupVersion } from "./resourceTypes.ts";

const VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

/** The Kubernetes version the simulator claims to be (`/version`). */
export const SERVER_VERSION = { major: "1", minor: "34", gitVersion: "v1.34.0-kube-sim" };

export function versionInfo(): Record<string, unknown> {
  return {
    ...SERVER_VERSION,
    gitCommit: "0000000000000000000000000000000000000000",
    gitTreeState: "clean",
    buildDate: "2026-01-01T00:00:00Z",
    goVersion: "go1.24.0",
    compiler: "gc",
    platform: "linux/amd64",
  };
}

export function coreVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

function groupVersions(types: ResourceRegistry): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const type of types.types) {
    if (type.group === "") continue;
    const versions = groups.get(type.group) ?? [];
    // Listed newest first: the preferred version is the storage version of the group's kinds.
    for (const version of [type.storageVersion, ...type.versions.map((v) => v.name)]) {
      if (!versions.includes(version)) versions.push(version);
    }
    groups.set(type.group, versions);
  }
  return groups;
}

function groupEntry(group: string, versions: string[]): Record<string, unknown> {
  const entries = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: entries, preferredVersion: entries[0] };
}

export function apiGroupList(types: ResourceRegistry): Record<string, unknown> {
  const groups = [...groupVersions(types)].map(([group, versions]) => groupEntry(group, versions));
  return { kind: "APIGroupList", apiVersion: "v1", groups };
}

export function apiGroup(types: ResourceRegistry, group: string): Record<string, unknown> {
  return {
    kind: "APIGroup",
    apiVersion: "v1",
    ...groupEntry(group, groupVersions(types).get(group) ?? []),
  };
}

function resourceEntries(type: ResourceType, version: string): Record<string, unknown>[] {
  const main = {
    name: type.plural,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: VERBS,
    ...(type.shortNames.length > 0 ? { shortNames: type.shortNames } : {}),
  };
  const sub = (name: string, kind: string, extra: Record<string, unknown> = {}) => ({
    name: `${type.plural}/${name}`,
    singularName: "",
    namespaced: type.namespaced,
    ...extra,
    kind,
    verbs: ["get", "patch", "update"],
  });
  const entries: Record<string, unknown>[] = [main];
  if (type.statusSubresource) entries.push(sub("status", type.kind));
  if (type.versions.find((v) => v.name === version)?.scale !== undefined) {
    entries.push(sub("scale", "Scale", { group: "autoscaling", version: "v1" }));
  }
  return entries;
}

/** The APIResourceList of one group version, with the `<plural>/status` and `/scale` entries. */
export function apiResourceList(
  types: ResourceRegistry,
  group: string,
  version: string,
): Record<string, unknown> {
  const served = types.types.filter(
    (type) => type.group === group && type.versions.some((v) => v.name === version),
  );
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: groupVersion({ group, plural: "", kind: "" }, version),
    resources: served.flatMap((type) => resourceEntries(type, version)),
  };
}
