import { loadAgentSandboxTypes } from "./load.ts";
import type { CustomResourceType } from "./types.ts";

/** The loaded agent-sandbox type of `kind`, for tests. */
export function agentSandboxType(kind: string): CustomResourceType {
  const type = loadAgentSandboxTypes().find((t) => t.kind === kind);
  if (type === undefined) throw new Error(`no type ${kind}`);
  return type;
}
