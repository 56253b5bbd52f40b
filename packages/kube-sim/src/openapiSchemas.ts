/**
 * The schema each served kind publishes at /openapi: the CRD's `openAPIV3Schema` for custom
 * resources (the schema kube-sim validates them with), and for built-in kinds, which kube-sim does
 * not validate by schema, a permissive object that names apiVersion, kind and metadata and keeps
 * every other field.
 */
import type { ResourceType } from "./resourceTypes.ts";
import { publishedSchemaOf } from "./schema/index.ts";

export type JsonSchema = Record<string, unknown>;

/** The names of the built-in groups under `io.k8s.api.<name>` (the first label of the group). */
function builtinPackage(group: string): string {
  return group === "" ? "core" : (group.split(".")[0] ?? group);
}

/**
 * The definition name kube-apiserver gives a kind: `io.k8s.api.core.v1.Pod` for built-in kinds,
 * the reversed group for custom resources (`io.x-k8s.agents.v1beta1.Sandbox`).
 */
export function definitionName(type: ResourceType, version: string): string {
  const prefix =
    type.custom === undefined
      ? `io.k8s.api.${builtinPackage(type.group)}`
      : type.group.split(".").reverse().join(".");
  return `${prefix}.${version}.${type.kind}`;
}

/** `x-kubernetes-group-version-kind` of a definition (a list) or an operation (one entry). */
export function groupVersionKind(type: ResourceType, version: string): Record<string, string> {
  return { group: type.group, kind: type.kind, version };
}

const PERMISSIVE_OBJECT: JsonSchema = {
  type: "object",
  properties: {
    apiVersion: {
      description: "APIVersion defines the versioned schema of this representation of an object.",
      type: "string",
    },
    kind: {
      description: "Kind is a string value representing the REST resource this object represents.",
      type: "string",
    },
    metadata: { description: "Standard object's metadata.", type: "object" },
  },
  "x-kubernetes-preserve-unknown-fields": true,
};

/** The OpenAPI v3 schema of one served version of a kind, with its group-version-kind. */
export function kindSchemaV3(type: ResourceType, version: string): JsonSchema {
  const schema =
    type.custom === undefined
      ? {
          description: `${type.kind}: kube-sim does not model this kind's schema and keeps every field.`,
          ...PERMISSIVE_OBJECT,
        }
      : publishedSchemaOf(type.custom, version);
  return { ...schema, "x-kubernetes-group-version-kind": [groupVersionKind(type, version)] };
}

const V2_DROPPED = new Set([
  "nullable",
  "anyOf",
  "oneOf",
  "not",
  "x-kubernetes-validations",
  "x-kubernetes-int-or-string",
  "x-kubernetes-embedded-resource",
]);

/**
 * A structural v3 schema as Swagger 2.0 can carry it, changed the way kube-apiserver changes a CRD
 * schema for /openapi/v2 so that kubectl's client-side validation does not refuse what the server
 * accepts: nodes that keep unknown fields, int-or-string and nullable nodes lose their type and
 * fields (kubectl then accepts any value there), and keywords v2 lacks are dropped.
 */
export function toSwagger2(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toSwagger2);
  if (typeof schema !== "object" || schema === null) return schema;
  const node = schema as JsonSchema;
  const loose =
    node["x-kubernetes-preserve-unknown-fields"] === true ||
    node["x-kubernetes-int-or-string"] === true ||
    node.nullable === true;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (V2_DROPPED.has(key)) continue;
    if (loose && (key === "type" || key === "properties" || key === "additionalProperties")) {
      continue;
    }
    if (loose && (key === "items" || key === "required" || key === "enum")) continue;
    if (key === "properties" && typeof value === "object" && value !== null) {
      out[key] = Object.fromEntries(
        Object.entries(value as JsonSchema).map(([name, sub]) => [name, toSwagger2(sub)]),
      );
      continue;
    }
    // Vendor extensions and `default`/`enum` values are data, not schemas.
    if (key.startsWith("x-") || key === "default" || key === "enum" || key === "example") {
      out[key] = value;
      continue;
    }
    out[key] = toSwagger2(value);
  }
  return out;
}
