// The Kubernetes backend's foundation (part 1): the client wrapper, error normalisation,
// naming, fingerprints and idempotent allocation. The only folder that imports
// @kubernetes/client-node; see README.md.
export { KubeClient, CreateOnlyAnnotationPatchError } from "./kubeClient.ts";
export type { JsonPatchOperation, KubeClientOptions, KubePatch } from "./kubeClient.ts";
export { DEFAULT_REQUEST_TIMEOUT_MS, MIN_REQUEST_TIMEOUT_MS } from "./kubeClient.ts";
export { KubeConfigError, loadKubeConfig } from "./kubeConfig.ts";
export type { KubeConfigSource, LoadedKubeConfig } from "./kubeConfig.ts";
export { Operation, startOperation } from "./operation.ts";
export type { AbortCause, OperationOptions } from "./operation.ts";
export { KubeError, kubeErrorKinds, normalizeKubeError } from "./kubeErrors.ts";
export type { KubeErrorKind, KubeRequest } from "./kubeErrors.ts";
export { backendCodeOf, toBackendError } from "./kubeBackendErrors.ts";
export { retryDelayFor, retrying } from "./kubeRetry.ts";
export { parseRetryAfter } from "./retryAfter.ts";
export { SANDBOX, apiVersionOf } from "./kubeObjects.ts";
export type { CustomKind, JsonValue, KubeObject, ObjectMeta } from "./kubeObjects.ts";
export {
  ALLOCATION_ANNOTATIONS,
  BERTH_KEY_PREFIX,
  CREATE_ONLY_ANNOTATIONS,
  LABELS,
  POD_TEMPLATE_HASH_ANNOTATION,
} from "./berthKeys.ts";
export {
  derivedNames,
  isDns1123Label,
  MAX_VOLUME_CLAIM_TEMPLATE_NAME_LENGTH,
  sandboxNameFor,
  SandboxNameError,
  shortId,
} from "./sandboxNames.ts";
export type { DerivedNames } from "./sandboxNames.ts";
export { installationSelector, readSandboxIdentity, sandboxLabels } from "./sandboxLabels.ts";
export type { SandboxIdentity } from "./sandboxLabels.ts";
export { executionProfileFingerprint, podTemplateHash } from "./executionProfile.ts";
export type { PodTemplate } from "./executionProfile.ts";
export { allocateSandbox, allocationScope, readAllocation } from "./allocation.ts";
export type {
  Allocation,
  AllocationReading,
  AllocationRequest,
  VolumeClaimTemplate,
} from "./allocation.ts";
export { AllocationInputError, AllocationRefusedError } from "./allocationErrors.ts";
export type { AllocationField } from "./allocationErrors.ts";
