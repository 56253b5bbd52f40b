import type { KindConversion } from "./conversionKinds.ts";
import {
  annotation,
  ConversionError,
  recordAlphaState,
  removeAnnotation,
  section,
  setAnnotation,
} from "./conversionSupport.ts";

/**
 * SandboxTemplate v1alpha1 ↔ v1beta1 (upstream `sandboxtemplate_conversion.go`): the only
 * v1beta1-only field, `volumeClaimTemplatesPolicy`, rides along in v1alpha1 as an annotation.
 */
const STATE = "api.agents.x-k8s.io/v1alpha1-sandboxtemplate-state";
const VCT_POLICY = "api.agents.x-k8s.io/v1beta1-volume-claim-templates-policy";
const POLICIES = new Set(["Disallowed", "Allowed", "Overrides"]);

export const templateConversion: KindConversion = {
  toHub(object) {
    const alpha = structuredClone(object);
    const policy = annotation(object, VCT_POLICY);
    if (policy !== undefined) {
      if (!POLICIES.has(policy)) {
        throw new ConversionError(
          "SandboxTemplate",
          `invalid VolumeClaimTemplatesPolicy annotation value: ${JSON.stringify(policy)}`,
        );
      }
      section(object, "spec").volumeClaimTemplatesPolicy = policy;
      removeAnnotation(object, VCT_POLICY);
    }
    recordAlphaState(object, alpha, STATE);
    return object;
  },
  fromHub(object) {
    removeAnnotation(object, STATE);
    const spec = section(object, "spec");
    const policy = spec.volumeClaimTemplatesPolicy;
    delete spec.volumeClaimTemplatesPolicy;
    if (typeof policy === "string" && policy !== "") setAnnotation(object, VCT_POLICY, policy);
    else removeAnnotation(object, VCT_POLICY);
    return object;
  },
};
