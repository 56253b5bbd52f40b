/**
 * The OpenAPI documents (issue 42): `/openapi/v3` and its group-version documents, `/openapi/v2` in
 * JSON and in protobuf, each describing every served kind with its group-version-kind.
 */
import { describe, expect, it } from "vitest";
import { simFixture, type Fixture, type Obj } from "./harness.ts";

const PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

async function get(f: Fixture, path: string, accept?: string): Promise<Response> {
  return fetch(`${f.sim.url}${path}`, accept === undefined ? {} : { headers: { Accept: accept } });
}

async function json(f: Fixture, path: string): Promise<Obj> {
  const response = await get(f, path);
  expect(response.status, path).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/json");
  return (await response.json()) as Obj;
}

type Gvk = { group: string; version: string; kind: string };

describe("OpenAPI documents (issue 42)", () => {
  it("/openapi/v3 lists api/v1 and every served group version with a hashed serverRelativeURL", async () => {
    await using f = await simFixture();
    const index = (await json(f, "/openapi/v3")) as {
      paths: Record<string, { serverRelativeURL: string }>;
    };
    const served = f.sim.types.types.flatMap((type) =>
      type.versions.map((v) =>
        type.group === "" ? `api/${v.name}` : `apis/${type.group}/${v.name}`,
      ),
    );
    expect(Object.keys(index.paths).sort()).toEqual([...new Set(served)].sort());
    for (const [path, entry] of Object.entries(index.paths)) {
      expect(entry.serverRelativeURL).toMatch(
        new RegExp(`^/openapi/v3/${path}\\?hash=[0-9A-F]{128}$`),
      );
    }
  });

  it("every served kind and version has a components.schemas entry with its x-kubernetes-group-version-kind", async () => {
    await using f = await simFixture();
    const index = (await json(f, "/openapi/v3")) as {
      paths: Record<string, { serverRelativeURL: string }>;
    };
    const published: Gvk[] = [];
    for (const entry of Object.values(index.paths)) {
      const document = (await json(f, entry.serverRelativeURL)) as {
        openapi: string;
        components: { schemas: Record<string, { "x-kubernetes-group-version-kind": Gvk[] }> };
      };
      expect(document.openapi).toBe("3.0.0");
      for (const schema of Object.values(document.components.schemas)) {
        published.push(...schema["x-kubernetes-group-version-kind"]);
      }
    }
    const served = f.sim.types.types.flatMap((type) =>
      type.versions.map((v) => ({ group: type.group, version: v.name, kind: type.kind })),
    );
    expect(published).toEqual(expect.arrayContaining(served));
    expect(published).toHaveLength(served.length);
  });

  it("a CRD's schema is its openAPIV3Schema under the reversed-group name; core kinds get the permissive object", async () => {
    await using f = await simFixture();
    const agents = (await json(f, "/openapi/v3/apis/agents.x-k8s.io/v1beta1")) as {
      components: { schemas: Record<string, Obj> };
    };
    const sandbox = agents.components.schemas["io.x-k8s.agents.v1beta1.Sandbox"];
    expect(sandbox?.["x-kubernetes-group-version-kind"]).toEqual([
      { group: "agents.x-k8s.io", kind: "Sandbox", version: "v1beta1" },
    ]);
    expect(Object.keys((sandbox?.properties as Obj).spec as Obj)).toContain("properties");
    const core = (await json(f, "/openapi/v3/api/v1")) as {
      components: { schemas: Record<string, Obj> };
    };
    expect(core.components.schemas["io.k8s.api.core.v1.ConfigMap"]).toMatchObject({
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
      "x-kubernetes-group-version-kind": [{ group: "", kind: "ConfigMap", version: "v1" }],
    });
    const cilium = (await json(f, "/openapi/v3/apis/cilium.io/v2")) as {
      components: { schemas: Record<string, Obj> };
    };
    expect(Object.keys(cilium.components.schemas)).toEqual(["io.cilium.v2.CiliumNetworkPolicy"]);
  });

  it("each kind's PATCH operation carries its group-version-kind and the fieldValidation parameter (what kubectl ≥ 1.25 checks)", async () => {
    await using f = await simFixture();
    const document = (await json(f, "/openapi/v3/apis/agents.x-k8s.io/v1beta1")) as {
      paths: Record<string, Record<string, Obj>>;
    };
    const patch =
      document.paths["/apis/agents.x-k8s.io/v1beta1/namespaces/{namespace}/sandboxes/{name}"]
        ?.patch;
    expect(patch?.["x-kubernetes-group-version-kind"]).toEqual({
      group: "agents.x-k8s.io",
      kind: "Sandbox",
      version: "v1beta1",
    });
    expect(patch?.parameters).toContainEqual({
      name: "fieldValidation",
      in: "query",
      schema: { type: "string", uniqueItems: true },
    });
  });

  it("an unknown group version under /openapi/v3 is the §1 404", async () => {
    await using f = await simFixture();
    const response = await get(f, "/openapi/v3/apis/nope.example/v1");
    expect(response.status).toBe(404);
    expect(((await response.json()) as Obj).message).toBe(
      "the server could not find the requested resource",
    );
  });

  it("/openapi/v2 in JSON: Swagger 2.0 definitions, with what v2 cannot say dropped (int-or-string, preserve-unknown-fields)", async () => {
    await using f = await simFixture();
    const document = (await json(f, "/openapi/v2")) as {
      swagger: string;
      definitions: Record<string, Obj>;
    };
    expect(document.swagger).toBe("2.0");
    expect(Object.keys(document.definitions)).toHaveLength(
      f.sim.types.types.reduce((sum, type) => sum + type.versions.length, 0),
    );
    const configMap = document.definitions["io.k8s.api.core.v1.ConfigMap"];
    expect(configMap?.type).toBeUndefined();
    expect(configMap?.["x-kubernetes-group-version-kind"]).toEqual([
      { group: "", kind: "ConfigMap", version: "v1" },
    ]);
    const text = JSON.stringify(document.definitions);
    expect(text).not.toContain('"anyOf"');
    expect(text).not.toContain('"x-kubernetes-validations"');
  });

  it("/openapi/v2 in protobuf when asked for only that (kubectl's discovery client); 406 when neither it nor JSON is acceptable", async () => {
    await using f = await simFixture();
    const response = await get(f, "/openapi/v2", PROTOBUF);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/octet-stream");
    const bytes = Buffer.from(await response.arrayBuffer());
    // Field 1 (swagger), length-delimited: "2.0".
    expect([...bytes.subarray(0, 5)]).toEqual([0x0a, 3, ...Buffer.from("2.0")]);
    expect(bytes.includes(Buffer.from("io.x-k8s.agents.v1beta1.Sandbox"))).toBe(true);
    const refused = await get(f, "/openapi/v2", "text/html");
    expect(refused.status).toBe(406);
    expect(((await refused.json()) as Obj).reason).toBe("NotAcceptable");
  });
});
