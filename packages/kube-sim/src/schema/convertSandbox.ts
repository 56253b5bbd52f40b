import type { KindConversion } from "./conversionKinds.ts";
import { dig, recordAlphaState, section, takeAlphaState } from "./conversionSupport.ts";

/**
 * Sandbox v1alpha1 ↔ v1beta1 (upstream `api/v1alpha1/sandbox_conversion.go`): `spec.replicas`
 * 0 means `operatingMode: Suspended`, anything else (or none) `Running`; `status.replicas`
 * exists only in v1alpha1 and `status.nodeName` only in v1beta1. Other fields carry over.
 */
const STATE = "api.agents.x-k8s.io/v1alpha1-sandbox-state";

export const sandboxConversion: KindConversion = {
  toHub(object) {
    recordAlphaState(object, structuredClone(object), STATE);
    const spec = section(object, "spec");
    spec.operatingMode = spec.replicas === 0 ? "Suspended" : "Running";
    delete spec.replicas;
    if (object.status !== undefined) delete section(object, "status").replicas;
    return object;
  },
  fromHub(object) {
    const original = takeAlphaState(object, STATE, "Sandbox");
    const spec = section(object, "spec");
    const suspended = spec.operatingMode === "Suspended";
    delete spec.operatingMode;
    spec.replicas = suspended ? 0 : 1;
    if (object.status !== undefined) {
      const status = section(object, "status");
      delete status.nodeName;
      status.replicas = suspended ? 0 : 1;
    }
    if (original === undefined) return object;
    // Running keeps the v1alpha1 replicas the client wrote, unless that was 0 (no longer true).
    const originalReplicas = dig(original, "spec", "replicas");
    if (!suspended && originalReplicas !== 0) {
      if (originalReplicas === undefined) delete spec.replicas;
      else spec.replicas = originalReplicas;
    }
    if (object.status !== undefined) {
      const status = section(object, "status");
      const originalStatusReplicas = dig(original, "status", "replicas");
      if (originalStatusReplicas === undefined) delete status.replicas;
      else status.replicas = originalStatusReplicas;
    }
    return object;
  },
};
