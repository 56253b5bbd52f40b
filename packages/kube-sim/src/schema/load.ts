import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadAll } from "js-yaml";
import { compileCrd } from "./compile.ts";
import type { CustomResourceType } from "./types.ts";

/** The agent-sandbox release whose CRDs this package ships (see crds/<release>/README.md). */
export const AGENT_SANDBOX_CRDS = "agent-sandbox-v0.5.6";

// Resolved from this module, so the package finds its own copy wherever it is installed.
const AGENT_SANDBOX_DIR = fileURLToPath(
  new URL(`../../crds/${AGENT_SANDBOX_CRDS}/`, import.meta.url),
);

/** Compiles every CustomResourceDefinition in the `*.yaml` files of `dir` (sorted by file name). */
export function loadCustomResourceTypes(dir: string): CustomResourceType[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".yaml") || name.endsWith(".yml"))
    .sort();
  return files.flatMap((name) =>
    loadAll(readFileSync(join(dir, name), "utf8"))
      .filter((crd) => crd !== null && crd !== undefined)
      .map(compileCrd),
  );
}

let agentSandboxTypes: CustomResourceType[] | undefined;

/**
 * Sandbox, SandboxClaim, SandboxTemplate and SandboxWarmPool from the shipped CRDs. Parsed once
 * (the Sandbox CRD is 400 kB); every call returns the same objects, so treat them as read-only.
 */
export function loadAgentSandboxTypes(): CustomResourceType[] {
  agentSandboxTypes ??= loadCustomResourceTypes(AGENT_SANDBOX_DIR);
  return agentSandboxTypes;
}

/** The subset of Cilium's CiliumNetworkPolicy CRD this package ships (see crds/<dir>/README.md). */
export const CILIUM_CRDS = "cilium-v2-subset";

const CILIUM_DIR = fileURLToPath(new URL(`../../crds/${CILIUM_CRDS}/`, import.meta.url));

let ciliumTypes: CustomResourceType[] | undefined;

/** CiliumNetworkPolicy (`cilium.io/v2`), served through the same CRD path as agent-sandbox's kinds. */
export function loadCiliumPolicyTypes(): CustomResourceType[] {
  ciliumTypes ??= loadCustomResourceTypes(CILIUM_DIR);
  return ciliumTypes;
}
