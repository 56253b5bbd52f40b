export { readMachines, type MachinesScope } from "./readMachines.ts";
export { connectedRecently, DEFAULT_HEARTBEAT_MS, MACHINE_ONLINE_WINDOW_MS } from "./heartbeat.ts";
export { relayRequestSchema, type MachineRelay, type RelayRequest } from "./machineRelay.ts";
export { readMachineRoute, type MachineRoute, type RouteLookup } from "./machineRoute.ts";
export type { MachineState, MachineView } from "./machineView.ts";
export {
  authenticateMachine,
  machineCredentialHash,
  MACHINE_CREDENTIAL_PREFIX,
  newMachineCredential,
  type AuthenticatedMachine,
} from "./machineCredential.ts";
export {
  createEnrollmentCode,
  ENROLLMENT_CODE_TTL_MS,
  EnrollmentRefusedError,
  redeemEnrollmentCode,
  refusalWords,
  type EnrolledMachine,
  type EnrollmentCodeCreator,
  type EnrollmentRefusal,
  type NewEnrollmentCode,
} from "./enrollment.ts";
export {
  ENROLLMENT_CODE_ALPHABET,
  enrollmentCodeHash,
  normalizeEnrollmentCode,
} from "./enrollmentCode.ts";
export { DEFAULT_MACHINE_NAME, MACHINE_NAME_MAX } from "./machineNames.ts";
export {
  renameMachine,
  revokeMachine,
  type MachineRef,
  type RenameOutcome,
  type RevokeOutcome,
} from "./machineAdmin.ts";
export {
  issueRotatedCredential,
  requestCredentialRotation,
  retireOtherCredentials,
  type IssueOutcome,
  type RotationRequestOutcome,
} from "./credentialRotation.ts";
export {
  enrolledMachineState,
  readEnrolledMachines,
  type EnrolledMachineState,
  type EnrolledMachineView,
} from "./enrolledMachines.ts";
export {
  AgentChannels,
  DEFAULT_AGENT_CALL_TIMEOUT_MS,
  type AgentChannelsOptions,
} from "./agentChannels.ts";
export type {
  AgentCallOptions,
  AgentChannelEnd,
  AgentConnection,
  AgentEvent,
  AgentSink,
  ConnectingMachine,
  MachineTarget,
} from "./agentChannelTypes.ts";
export { machineBoxClient, type MachineBoxClient } from "./machineBoxClient.ts";
