import { compileCrd } from "./compile.ts";
import { loadAgentSandboxTypes } from "./load.ts";
import type { CustomResourceType } from "./types.ts";

/** The loaded agent-sandbox type of `kind`, for tests. */
export function agentSandboxType(kind: string): CustomResourceType {
  const type = loadAgentSandboxTypes().find((t) => t.kind === kind);
  if (type === undefined) throw new Error(`no type ${kind}`);
  return type;
}

type Body = Record<string, unknown>;

/** A minimal valid v1beta1 Sandbox named `sb1`, with `spec` fields merged over it. */
export function betaSandbox(spec: Body = {}): Body {
  return {
    apiVersion: "agents.x-k8s.io/v1beta1",
    kind: "Sandbox",
    metadata: { name: "sb1", namespace: "default" },
    spec: {
      podTemplate: { spec: { containers: [{ name: "main", image: "busybox" }] } },
      ...spec,
    },
  };
}

/** A minimal valid object of an `extensions.agents.x-k8s.io` kind. */
export function extension(kind: string, version: string, spec: Body): Body {
  return {
    apiVersion: `extensions.agents.x-k8s.io/${version}`,
    kind,
    metadata: { name: "x1", namespace: "default" },
    spec,
  };
}

/** A one-version (`v1`), namespaced CRD in `example.com` whose `spec` has the schema `spec`. */
export function exampleCrd(kind: string, spec: Body): CustomResourceType {
  const singular = kind.toLowerCase();
  const plural = `${singular}s`;
  return compileCrd({
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: "example.com",
      names: { kind, listKind: `${kind}List`, plural, singular },
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", properties: { spec } } },
        },
      ],
    },
  });
}
