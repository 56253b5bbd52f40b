/**
 * The CRD schema layer of the simulated API server: the agent-sandbox CRDs, and what the
 * server does with a custom resource's body (prune, default, validate, CEL, convert).
 */
export type {
  Admission,
  CrdVersion,
  CustomResourceType,
  FieldCause,
  FieldCauseReason,
  FieldValidation,
} from "./types.ts";
export type { AdmissionRequest } from "./admit.ts";
export { admitCustomResource, admitCustomResourceRequest, defaultCustomResource } from "./admit.ts";
export { convertCustomResource } from "./convert.ts";
export type { UnknownFieldOutcome } from "./fieldValidation.ts";
export { unknownFieldOutcome } from "./fieldValidation.ts";
export { ConversionError } from "./conversionSupport.ts";
export { compileCrd, CrdReadError, publishedSchemaOf, UnknownVersionError } from "./compile.ts";
export {
  AGENT_SANDBOX_CRDS,
  CILIUM_CRDS,
  loadAgentSandboxTypes,
  loadCiliumPolicyTypes,
  loadCustomResourceTypes,
} from "./load.ts";
export type { CelProgram } from "./cel.ts";
export { CelCompileError, CelEvaluationError, compileCel } from "./cel.ts";
export { SchemaReadError } from "./structural.ts";
