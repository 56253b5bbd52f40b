// The box protocol: the wire schemas boxd and its clients share, the typed client, the
// canonical JSON and manifest rules, and the token derivation.
export {
  canonicalFingerprint,
  canonicalJson,
  CanonicalJsonError,
  compareUtf16,
} from "./canonicalJson.ts";
export type { CanonicalJsonValue } from "./canonicalJson.ts";
export { deriveBoxToken, tokensMatch } from "./boxToken.ts";
export { poolBindProof } from "./poolBindProof.ts";
export type { DeriveBoxTokenOptions } from "./boxToken.ts";
export { BOX_ERROR_CODES, BoxError, httpStatusOf } from "./boxError.ts";
export type { BoxErrorCode } from "./boxError.ts";
export { boxErrorCodeSchema, boxErrorFromResponse, errorBodySchema } from "./errors.ts";
export type { ErrorBody } from "./errors.ts";
export {
  createManifest,
  MANIFEST_FORMAT,
  MANIFEST_PAX_KEY,
  MANIFEST_TAR_ENTRY,
  manifestEntrySchema,
  manifestRevision,
  manifestSchema,
} from "./manifest.ts";
export type { Manifest, ManifestEntry } from "./manifest.ts";
export {
  drainEntry,
  isManifestEntry,
  normalizeTarPath,
  hashEmbeddedManifest,
  tarManifestReader,
} from "./tarManifest.ts";
export type { PaxHeaders, TarManifest } from "./tarManifest.ts";
export {
  AUTH_HEADER,
  boxOperations,
  CAPTURE_ESTIMATE_HEADER,
  POD_UID_HEADER,
  streamRoutes,
} from "./operations.ts";
export type {
  BoxOperationName,
  BoxOperations,
  OperationInput,
  OperationRequest,
  OperationResponse,
} from "./operations.ts";
export { decodeUploadQuery, encodeUploadQuery } from "./uploadQuery.ts";
export { PATH_LIMITS, pathLimitProblem, pathNames } from "./pathLimits.ts";
export * from "./schemas/files.ts";
export * from "./schemas/chunkedUpload.ts";
export * from "./schemas/git.ts";
export * from "./schemas/exec.ts";
export * from "./schemas/terminals.ts";
export * from "./schemas/workspace.ts";
export * from "./schemas/bind.ts";
export { createBoxClient } from "./client/boxClient.ts";
export { bindBox } from "./client/bindBox.ts";
export type { BindBoxOptions } from "./client/bindBox.ts";
export { endpointUrl } from "./client/http.ts";
export type { BoxAddress, BoxClient, CreateBoxClientOptions } from "./client/boxClient.ts";
export type {
  BodySource,
  CaptureInput,
  CaptureResult,
  Download,
  TransferProgress,
  UploadInput,
} from "./client/streams.ts";
export { rawText } from "./client/terminalAttach.ts";
export type { AttachTerminalOptions, TerminalConnection } from "./client/terminalAttach.ts";
export * from "./agent/agentProtocol.ts";
