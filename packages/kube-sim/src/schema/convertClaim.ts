import type { KindConversion } from "./conversionKinds.ts";
import { dig, recordAlphaState, section, takeAlphaState } from "./conversionSupport.ts";

/**
 * SandboxClaim v1alpha1 ↔ v1beta1 (upstream `extensions/api/v1alpha1/sandboxclaim_conversion.go`).
 * v1alpha1 names a template (`sandboxTemplateRef`) and a `warmpool` policy (`none`, `default` or
 * a pool name); v1beta1 names only a pool (`warmPoolRef`). A claim without a specific pool maps
 * to the pool its warm sandbox came from (`<pool>-xxxxx` less the suffix), else to
 * `shadow-pool-<template>`; going back, `shadow-pool-<t>` means template `t`, policy `default`.
 */
const STATE = "api.agents.x-k8s.io/v1alpha1-sandboxclaim-state";
const SHADOW = "shadow-pool-";

function specificPool(policy: unknown): string | undefined {
  return typeof policy === "string" && policy !== "" && policy !== "none" && policy !== "default"
    ? policy
    : undefined;
}

function stripRandomSuffix(name: string): string {
  const dash = name.lastIndexOf("-");
  return dash === -1 ? name : name.slice(0, dash);
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function poolMatches(actual: string, expected: string, sandboxName: string): boolean {
  return (
    actual === expected ||
    actual === `${SHADOW}${expected}` ||
    (sandboxName !== "" && (actual === sandboxName || actual === stripRandomSuffix(sandboxName)))
  );
}

export const claimConversion: KindConversion = {
  toHub(object) {
    recordAlphaState(object, structuredClone(object), STATE);
    const spec = section(object, "spec");
    const claimName = str(dig(object, "metadata", "name"));
    const sandboxName = str(dig(object, "status", "sandbox", "name"));
    const pool = specificPool(spec.warmpool);
    let poolName: string;
    if (pool !== undefined) poolName = pool;
    else if (sandboxName !== "" && sandboxName !== claimName) {
      poolName = stripRandomSuffix(sandboxName);
    } else poolName = `${SHADOW}${str(dig(spec, "sandboxTemplateRef", "name"))}`;
    spec.warmPoolRef = { name: poolName };
    delete spec.sandboxTemplateRef;
    delete spec.warmpool;
    return object;
  },
  fromHub(object) {
    const original = takeAlphaState(object, STATE, "SandboxClaim");
    const spec = section(object, "spec");
    const poolName = str(dig(spec, "warmPoolRef", "name"));
    delete spec.warmPoolRef;
    if (poolName.startsWith(SHADOW)) {
      spec.sandboxTemplateRef = { name: poolName.slice(SHADOW.length) };
      spec.warmpool = "default";
    } else {
      spec.sandboxTemplateRef = { name: poolName };
      spec.warmpool = poolName;
    }
    if (original === undefined) return object;
    const originalRef = dig(original, "spec", "sandboxTemplateRef");
    const originalPool = dig(original, "spec", "warmpool");
    const expected = specificPool(originalPool) ?? str(dig(originalRef, "name"));
    const sandboxName = str(dig(object, "status", "sandbox", "name"));
    // The template cannot be recovered from a changed pool, so the original one is kept.
    spec.sandboxTemplateRef = structuredClone(originalRef);
    if (!poolMatches(poolName, expected, sandboxName)) spec.warmpool = poolName;
    else if (originalPool === undefined) delete spec.warmpool;
    else spec.warmpool = originalPool;
    return object;
  },
};
