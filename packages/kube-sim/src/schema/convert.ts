import { schemaOf } from "./compile.ts";
import { claimConversion } from "./convertClaim.ts";
import { ConversionError } from "./conversionSupport.ts";
import type { KindConversion } from "./conversionKinds.ts";
import { sandboxConversion } from "./convertSandbox.ts";
import { templateConversion } from "./convertTemplate.ts";
import { warmPoolConversion } from "./convertWarmPool.ts";
import { cloneJson } from "./json.ts";
import { pruneUnknownFields } from "./prune.ts";
import type { CustomResourceType } from "./types.ts";

const HUB = "v1beta1";
const SPOKE = "v1alpha1";

const CONVERSIONS: ReadonlyMap<string, KindConversion> = new Map([
  ["agents.x-k8s.io/Sandbox", sandboxConversion],
  ["extensions.agents.x-k8s.io/SandboxClaim", claimConversion],
  ["extensions.agents.x-k8s.io/SandboxTemplate", templateConversion],
  ["extensions.agents.x-k8s.io/SandboxWarmPool", warmPoolConversion],
]);

function versionOf(type: CustomResourceType, object: Record<string, unknown>): string {
  const apiVersion = object.apiVersion;
  const prefix = `${type.group}/`;
  if (typeof apiVersion !== "string" || !apiVersion.startsWith(prefix)) {
    throw new ConversionError(
      type.kind,
      `apiVersion ${String(apiVersion)} is not of ${type.group}`,
    );
  }
  return apiVersion.slice(prefix.length);
}

/**
 * Converts a stored or submitted object to `toVersion`, as the agent-sandbox conversion webhook
 * does (v1alpha1 ↔ v1beta1 for the four kinds), and rewrites `apiVersion`. The same version is
 * an identity copy. Fields the target version has no place for are dropped silently, as the
 * webhook's typed decoding drops them. Defaults are not applied: the server applies those of
 * the version it answers in, as on every read (`defaultCustomResource`).
 */
export function convertCustomResource(
  type: CustomResourceType,
  object: Record<string, unknown>,
  toVersion: string,
): Record<string, unknown> {
  const fromVersion = versionOf(type, object);
  const target = schemaOf(type, toVersion);
  schemaOf(type, fromVersion); // an object of a version the type lacks is refused too
  const copy = cloneJson(object);
  if (fromVersion === toVersion) return copy;
  const conversion = CONVERSIONS.get(`${type.group}/${type.kind}`);
  const pair = `${fromVersion}→${toVersion}`;
  let converted: Record<string, unknown>;
  if (conversion !== undefined && fromVersion === SPOKE && toVersion === HUB) {
    converted = conversion.toHub(copy);
  } else if (conversion !== undefined && fromVersion === HUB && toVersion === SPOKE) {
    converted = conversion.fromHub(copy);
  } else {
    throw new ConversionError(type.kind, `no conversion ${pair}`);
  }
  converted.apiVersion = `${type.group}/${toVersion}`;
  return pruneUnknownFields(converted, target, []);
}
