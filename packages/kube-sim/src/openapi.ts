/**
 * The OpenAPI documents kubectl downloads: `/openapi/v3` (an index of group versions, each a
 * document with `components.schemas`) and `/openapi/v2` (Swagger 2.0, JSON or protobuf). Every served kind is
 * in them with its `x-kubernetes-group-version-kind`, and its PATCH operation lists the
 * `fieldValidation` query parameter: that is how kubectl ≥ 1.25 decides the server validates
 * fields itself and sends `fieldValidation=Strict` instead of validating client-side.
 */
import { createHash } from "node:crypto";
import { swaggerProtobuf } from "./openapiProtobuf.ts";
import type { JsonSchema } from "./openapiSchemas.ts";
import { definitionName, groupVersionKind, kindSchemaV3, toSwagger2 } from "./openapiSchemas.ts";
import type { ResourceRegistry, ResourceType } from "./resourceTypes.ts";

type Dialect = "v2" | "v3";

/** The query parameters of the write verbs, as kube-apiserver lists them. */
const WRITE_QUERY = ["dryRun", "fieldManager", "fieldValidation"];

function queryParameter(name: string, dialect: Dialect): JsonSchema {
  return dialect === "v3"
    ? { name, in: "query", schema: { type: "string", uniqueItems: true } }
    : { name, in: "query", type: "string", uniqueItems: true };
}

function pathParameter(name: string, dialect: Dialect): JsonSchema {
  return dialect === "v3"
    ? { name, in: "path", required: true, schema: { type: "string", uniqueItems: true } }
    : { name, in: "path", required: true, type: "string", uniqueItems: true };
}

function reference(type: ResourceType, version: string, dialect: Dialect): JsonSchema {
  const where = dialect === "v3" ? "#/components/schemas/" : "#/definitions/";
  return { $ref: `${where}${definitionName(type, version)}` };
}

function okResponse(schema: JsonSchema, dialect: Dialect): JsonSchema {
  const answer =
    dialect === "v3"
      ? { description: "OK", content: { "application/json": { schema } } }
      : { description: "OK", schema };
  return { "200": answer };
}

function operation(
  action: string,
  request: { type: ResourceType; version: string; dialect: Dialect },
  extra: { query?: string[]; body?: boolean; returns?: JsonSchema } = {},
): JsonSchema {
  const { type, version, dialect } = request;
  const returns = extra.returns ?? reference(type, version, dialect);
  const parameters = (extra.query ?? []).map((name) => queryParameter(name, dialect));
  const body: JsonSchema = {};
  if (extra.body === true) {
    const schema = action === "patch" ? { type: "object" } : reference(type, version, dialect);
    if (dialect === "v3") {
      body.requestBody = { content: { "*/*": { schema } }, required: true };
    } else {
      parameters.unshift({ name: "body", in: "body", required: true, schema });
    }
  }
  return {
    operationId: `${action}${type.kind}`,
    parameters,
    ...body,
    responses: okResponse(returns, dialect),
    "x-kubernetes-action": action,
    "x-kubernetes-group-version-kind": groupVersionKind(type, version),
  };
}

/** The collection and object paths of one kind in one version. */
function kindPaths(type: ResourceType, version: string, dialect: Dialect): JsonSchema {
  const root = type.group === "" ? `/api/${version}` : `/apis/${type.group}/${version}`;
  const collection = type.namespaced
    ? `${root}/namespaces/{namespace}/${type.plural}`
    : `${root}/${type.plural}`;
  const request = { type, version, dialect };
  const scope = type.namespaced ? [pathParameter("namespace", dialect)] : [];
  const list = { type: "object" };
  return {
    [collection]: {
      parameters: scope,
      get: operation("list", request, { query: ["labelSelector", "fieldSelector"], returns: list }),
      post: operation("post", request, { query: WRITE_QUERY, body: true }),
    },
    [`${collection}/{name}`]: {
      parameters: [pathParameter("name", dialect), ...scope],
      get: operation("get", request),
      put: operation("put", request, { query: WRITE_QUERY, body: true }),
      patch: operation("patch", request, { query: [...WRITE_QUERY, "force"], body: true }),
      delete: operation("delete", request, { query: ["dryRun"], returns: { type: "object" } }),
    },
  };
}

interface Served {
  type: ResourceType;
  version: string;
}

function served(types: ResourceRegistry): Served[] {
  return types.types.flatMap((type) => type.versions.map(({ name }) => ({ type, version: name })));
}

function allPaths(kinds: Served[], dialect: Dialect): JsonSchema {
  const paths: JsonSchema = {};
  for (const { type, version } of kinds) Object.assign(paths, kindPaths(type, version, dialect));
  return paths;
}

/** `api/v1` or `apis/<group>/<version>`: the key of a group version in the v3 index. */
function groupVersionPath({ type, version }: Served): string {
  return type.group === "" ? `api/${version}` : `apis/${type.group}/${version}`;
}

function groupVersionDocument(kinds: Served[]): JsonSchema {
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: "v1.34.0-kube-sim" },
    paths: allPaths(kinds, "v3"),
    components: {
      schemas: Object.fromEntries(
        kinds.map(({ type, version }) => [
          definitionName(type, version),
          kindSchemaV3(type, version),
        ]),
      ),
    },
  };
}

/** The documents for one registry, built once: the kinds never change while a simulator runs. */
export interface OpenApiDocuments {
  /** `/openapi/v3`: `{ paths: { "<gv path>": { serverRelativeURL } } }`. */
  v3Index: JsonSchema;
  /** `/openapi/v3/<gv path>` by gv path (`api/v1`, `apis/agents.x-k8s.io/v1beta1`). */
  v3: ReadonlyMap<string, JsonSchema>;
  /** `/openapi/v2` in JSON. */
  v2: JsonSchema;
  /** `/openapi/v2` in protobuf (its definitions; see openapiProtobuf.ts). */
  v2Protobuf: Buffer;
}

const built = new WeakMap<ResourceRegistry, OpenApiDocuments>();

export function openApiDocuments(types: ResourceRegistry): OpenApiDocuments {
  const cached = built.get(types);
  if (cached !== undefined) return cached;
  const byGroupVersion = new Map<string, Served[]>();
  for (const kind of served(types)) {
    const key = groupVersionPath(kind);
    byGroupVersion.set(key, [...(byGroupVersion.get(key) ?? []), kind]);
  }
  const v3 = new Map<string, JsonSchema>();
  const index: Record<string, { serverRelativeURL: string }> = {};
  for (const [path, kinds] of byGroupVersion) {
    const document = groupVersionDocument(kinds);
    v3.set(path, document);
    // Like kube-apiserver: the hash of the document, so clients may cache it by URL.
    const hash = createHash("sha512").update(JSON.stringify(document)).digest("hex").toUpperCase();
    index[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
  }
  const kinds = served(types);
  const v2 = {
    swagger: "2.0",
    info: { title: "Kubernetes", version: "v1.34.0-kube-sim" },
    paths: allPaths(kinds, "v2"),
    definitions: Object.fromEntries(
      kinds.map(({ type, version }) => [
        definitionName(type, version),
        toSwagger2(kindSchemaV3(type, version)),
      ]),
    ),
  };
  const documents = { v3Index: { paths: index }, v3, v2, v2Protobuf: swaggerProtobuf(v2) };
  built.set(types, documents);
  return documents;
}
