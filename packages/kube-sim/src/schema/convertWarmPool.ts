import type { KindConversion } from "./conversionKinds.ts";
import { recordAlphaState, removeAnnotation, section } from "./conversionSupport.ts";

/**
 * SandboxWarmPool v1alpha1 ↔ v1beta1 (upstream `sandboxwarmpool_conversion.go`): the same
 * fields, except that v1alpha1 requires `replicas` (a missing v1beta1 value becomes 1) and has
 * no `status.observedGeneration` (dropped with the target schema's pruning).
 */
const STATE = "api.agents.x-k8s.io/v1alpha1-sandboxwarmpool-state";

export const warmPoolConversion: KindConversion = {
  toHub(object) {
    recordAlphaState(object, structuredClone(object), STATE);
    return object;
  },
  fromHub(object) {
    removeAnnotation(object, STATE);
    const spec = section(object, "spec");
    spec.replicas ??= 1;
    return object;
  },
};
