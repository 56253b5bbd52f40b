/**
 * TEMPORARY stand-in for the schema layer, which another branch (`kubeschema`) builds at this path
 * with the same exports; it replaces this file at merge. It is just enough for the API server's
 * tests: metadata from the CRD YAMLs, defaults, pruning, required fields and enums from the
 * OpenAPI schema, the one CEL rule hard-coded, and conversion that only rewrites `apiVersion`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning: string | undefined;
  subresources: {
    status: boolean;
    scale:
      | {
          specReplicasPath: string;
          statusReplicasPath: string;
          labelSelectorPath: string | undefined;
        }
      | undefined;
  };
}
export interface CustomResourceType {
  group: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  namespaced: boolean;
  versions: CrdVersion[];
  storageVersion: string;
}
export interface FieldCause {
  reason:
    | "FieldValueRequired"
    | "FieldValueNotSupported"
    | "FieldValueInvalid"
    | "FieldValueTypeInvalid"
    | "FieldValueForbidden"
    | "FieldValueTooLong"
    | "FieldValueDuplicate";
  field: string;
  message: string;
}
export type FieldValidation = "Ignore" | "Warn" | "Strict";
export interface Admission {
  object: Record<string, unknown>;
  unknownFields: string[];
  causes: FieldCause[];
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && !Array.isArray(value);

// The shared fixture is only a fallback until the schema branch vendors the CRDs into the package.
const CRD_DIRS = [
  join(dirname(fileURLToPath(import.meta.url)), "../../crds/agent-sandbox-v0.5.6"),
  "/work/shared/fixtures/agent-sandbox-crds",
];

const schemas = new Map<string, Node>();

export function loadAgentSandboxTypes(): CustomResourceType[] {
  const dir = CRD_DIRS.find((candidate) => existsSync(candidate));
  if (dir === undefined) throw new Error("agent-sandbox CRDs not found");
  return readdirSync(dir)
    .filter((file) => file.endsWith(".yaml"))
    .sort()
    .map((file) => toType(parse(readFileSync(join(dir, file), "utf8")) as Node));
}

function toType(crd: Node): CustomResourceType {
  const spec = crd.spec as Node;
  const names = spec.names as Node;
  const versions = (spec.versions as Node[]).map((version): CrdVersion => {
    const sub = isNode(version.subresources) ? version.subresources : {};
    const scale = isNode(sub.scale) ? sub.scale : undefined;
    const kind = names.kind as string;
    schemas.set(
      `${kind}/${version.name as string}`,
      (version.schema as Node).openAPIV3Schema as Node,
    );
    return {
      name: version.name as string,
      served: version.served === true,
      storage: version.storage === true,
      deprecated: version.deprecated === true,
      deprecationWarning: version.deprecationWarning as string | undefined,
      subresources: {
        status: isNode(sub.status),
        scale:
          scale === undefined
            ? undefined
            : {
                specReplicasPath: scale.specReplicasPath as string,
                statusReplicasPath: scale.statusReplicasPath as string,
                labelSelectorPath: scale.labelSelectorPath as string | undefined,
              },
      },
    };
  });
  return {
    group: spec.group as string,
    kind: names.kind as string,
    listKind: names.listKind as string,
    plural: names.plural as string,
    singular: names.singular as string,
    shortNames: (names.shortNames as string[] | undefined) ?? [],
    namespaced: spec.scope === "Namespaced",
    versions,
    storageVersion: versions.find((v) => v.storage)?.name ?? "",
  };
}

// eslint-disable-next-line @typescript-eslint/max-params -- temporary stand-in, replaced at merge
function walk(schema: Node, value: unknown, path: string, out: Admission): unknown {
  if (Array.isArray(value) && isNode(schema.items)) {
    const items = schema.items;
    return value.map((item, i) => walk(items, item, `${path}[${i}]`, out));
  }
  if (!isNode(value)) {
    if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
      const allowed = schema.enum.map((item) => JSON.stringify(item)).join(", ");
      out.causes.push({
        reason: "FieldValueNotSupported",
        field: path,
        message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${allowed}`,
      });
    }
    return value;
  }
  const properties = isNode(schema.properties) ? schema.properties : undefined;
  const result: Node = {};
  if (properties !== undefined) {
    for (const [key, sub] of Object.entries(properties)) {
      if (value[key] === undefined && isNode(sub) && sub.default !== undefined)
        value[key] = structuredClone(sub.default);
    }
    for (const required of (schema.required as string[] | undefined) ?? []) {
      if (value[required] === undefined) {
        out.causes.push({
          reason: "FieldValueRequired",
          field: path === "" ? required : `${path}.${required}`,
          message: "Required value",
        });
      }
    }
  }
  for (const [key, child] of Object.entries(value)) {
    const childPath = path === "" ? key : `${path}.${key}`;
    if (path === "" && key === "metadata") result[key] = child;
    else if (properties !== undefined) {
      const sub = properties[key];
      if (isNode(sub)) result[key] = walk(sub, child, childPath, out);
      else out.unknownFields.push(childPath);
    } else if (isNode(schema.additionalProperties)) {
      result[key] = walk(schema.additionalProperties, child, childPath, out);
    } else result[key] = child;
  }
  return result;
}

function schemaOf(type: CustomResourceType, version: string): Node {
  const schema = schemas.get(`${type.kind}/${version}`);
  if (schema === undefined) throw new Error(`no schema for ${type.kind} ${version}`);
  return schema;
}

// eslint-disable-next-line @typescript-eslint/max-params -- the schema layer's agreed signature
export function admitCustomResource(
  type: CustomResourceType,
  version: string,
  object: Record<string, unknown>,
  old: Record<string, unknown> | undefined,
): Admission {
  const out: Admission = { object: {}, unknownFields: [], causes: [] };
  out.object = walk(schemaOf(type, version), structuredClone(object), "", out) as Node;
  if (
    out.causes.length === 0 &&
    old !== undefined &&
    type.kind === "Sandbox" &&
    version === "v1beta1"
  ) {
    const spec = isNode(out.object.spec) ? out.object.spec : {};
    const oldSpec = isNode(old.spec) ? old.spec : {};
    if (
      JSON.stringify(spec.volumeClaimTemplates) !== JSON.stringify(oldSpec.volumeClaimTemplates)
    ) {
      out.causes.push({
        reason: "FieldValueInvalid",
        field: "spec",
        message: 'Invalid value: "object": volumeClaimTemplates is immutable',
      });
    }
  }
  return out;
}

export function defaultCustomResource(
  type: CustomResourceType,
  version: string,
  object: Record<string, unknown>,
): Record<string, unknown> {
  return admitCustomResource(type, version, object, undefined).object;
}

export function convertCustomResource(
  type: CustomResourceType,
  object: Record<string, unknown>,
  toVersion: string,
): Record<string, unknown> {
  return { ...object, apiVersion: `${type.group}/${toVersion}` };
}
