import { isRecord } from "./json.ts";
import { compileRules } from "./rules.ts";
import type { Structural } from "./structural.ts";
import { readStructural } from "./structural.ts";
import type { CrdVersion, CustomResourceType } from "./types.ts";

/** The CRD object is not one this layer can serve. */
export class CrdReadError extends Error {
  override readonly name = "CrdReadError";
  constructor(
    readonly crdName: string,
    detail: string,
  ) {
    super(`CustomResourceDefinition ${crdName}: ${detail}`);
  }
}

/** A version the type does not have (or whose schema is missing). */
export class UnknownVersionError extends Error {
  override readonly name = "UnknownVersionError";
  constructor(
    readonly kind: string,
    readonly version: string,
  ) {
    super(`${kind} has no version ${version}`);
  }
}

// The schemas stay beside the public type rather than in it, so the type stays the small
// shape the server is coded against; a type not made by compileCrd has none.
const schemas = new WeakMap<CustomResourceType, ReadonlyMap<string, Structural>>();
// The CRD's own `openAPIV3Schema` per version, as written: what the server publishes at /openapi.
const published = new WeakMap<CustomResourceType, ReadonlyMap<string, Record<string, unknown>>>();

/** The structural schema of `version` of a type made by {@link compileCrd}. */
export function schemaOf(type: CustomResourceType, version: string): Structural {
  const schema = schemas.get(type)?.get(version);
  if (schema === undefined) throw new UnknownVersionError(type.kind, version);
  return schema;
}

/** The `openAPIV3Schema` of `version` as the CRD declares it (read-only), for the OpenAPI documents. */
export function publishedSchemaOf(
  type: CustomResourceType,
  version: string,
): Record<string, unknown> {
  const schema = published.get(type)?.get(version);
  if (schema === undefined) throw new UnknownVersionError(type.kind, version);
  return schema;
}

function field(object: unknown, key: string): unknown {
  return isRecord(object) ? object[key] : undefined;
}

function text(object: unknown, key: string, crdName: string): string {
  const value = field(object, key);
  if (typeof value !== "string" || value === "") throw new CrdReadError(crdName, `no ${key}`);
  return value;
}

// Kubernetes' version priority: GA before beta before alpha, higher numbers first.
function versionRank(name: string): [number, number, number] {
  const match = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(name);
  if (match === null) return [3, 0, 0];
  const stability = match[2] === undefined ? 0 : match[2] === "beta" ? 1 : 2;
  return [stability, -Number(match[1]), -Number(match[3] ?? 0)];
}

function byPriority(a: string, b: string): number {
  const [x, y] = [versionRank(a), versionRank(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || a.localeCompare(b);
}

/**
 * Kubernetes' warning for a deprecated version without its own text: `<group>/<version> <Kind>
 * is deprecated`, plus `; use <group>/<preferred> <Kind>` when a served, non-deprecated version
 * ranks above it.
 */
function defaultDeprecationWarning(
  names: { group: string; kind: string },
  version: string,
  versions: readonly CrdVersion[],
): string {
  const { group, kind } = names;
  const message = `${group}/${version} ${kind} is deprecated`;
  const preferred = versions
    .filter((v) => v.served && !v.deprecated)
    .map((v) => v.name)
    .sort(byPriority)[0];
  if (preferred === undefined || byPriority(version, preferred) < 0) return message;
  return `${message}; use ${group}/${preferred} ${kind}`;
}

function readScale(raw: unknown): CrdVersion["subresources"]["scale"] {
  if (!isRecord(raw)) return undefined;
  const selector = raw.labelSelectorPath;
  return {
    specReplicasPath: String(raw.specReplicasPath),
    statusReplicasPath: String(raw.statusReplicasPath),
    labelSelectorPath: typeof selector === "string" ? selector : undefined,
  };
}

/**
 * Reads a CustomResourceDefinition object (apiextensions.k8s.io/v1, as parsed from YAML or
 * JSON) into a {@link CustomResourceType} and compiles its schemas and CEL rules.
 */
export function compileCrd(crd: unknown): CustomResourceType {
  const rawName = field(field(crd, "metadata"), "name");
  const crdName = typeof rawName === "string" ? rawName : "<unnamed>";
  const spec = field(crd, "spec");
  const names = field(spec, "names");
  const group = text(spec, "group", crdName);
  const kind = text(names, "kind", crdName);
  const rawVersions = field(spec, "versions");
  if (!Array.isArray(rawVersions)) throw new CrdReadError(crdName, "no versions");
  const versionSchemas = new Map<string, Structural>();
  const rawSchemas = new Map<string, Record<string, unknown>>();
  const versions: CrdVersion[] = rawVersions.map((raw) => {
    const name = text(raw, "name", crdName);
    const rawSchema = field(field(raw, "schema"), "openAPIV3Schema");
    const schema = readStructural(rawSchema);
    if (isRecord(rawSchema)) rawSchemas.set(name, rawSchema);
    compileRules(schema);
    versionSchemas.set(name, schema);
    const subresources = field(raw, "subresources");
    const warning = field(raw, "deprecationWarning");
    return {
      name,
      served: field(raw, "served") === true,
      storage: field(raw, "storage") === true,
      deprecated: field(raw, "deprecated") === true,
      // Kubernetes ignores a warning text on a version that is not deprecated.
      deprecationWarning:
        field(raw, "deprecated") === true && typeof warning === "string" ? warning : undefined,
      subresources: {
        status: isRecord(field(subresources, "status")),
        scale: readScale(field(subresources, "scale")),
      },
    };
  });
  for (const version of versions) {
    if (version.deprecated && version.deprecationWarning === undefined) {
      version.deprecationWarning = defaultDeprecationWarning(
        { group, kind },
        version.name,
        versions,
      );
    }
  }
  const storage = versions.filter((v) => v.storage);
  if (storage.length !== 1 || storage[0] === undefined) {
    throw new CrdReadError(crdName, `needs exactly one storage version, has ${storage.length}`);
  }
  const shortNames = field(names, "shortNames");
  const type: CustomResourceType = {
    group,
    kind,
    listKind: text(names, "listKind", crdName),
    plural: text(names, "plural", crdName),
    singular: text(names, "singular", crdName),
    shortNames: Array.isArray(shortNames) ? shortNames.map(String) : [],
    namespaced: field(spec, "scope") === "Namespaced",
    versions,
    storageVersion: storage[0].name,
  };
  schemas.set(type, versionSchemas);
  published.set(type, rawSchemas);
  return type;
}
