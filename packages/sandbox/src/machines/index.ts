export { MACHINE_ONLINE_WINDOW_MS, readMachines, type MachinesScope } from "./readMachines.ts";
export type { MachineState, MachineView } from "./machineView.ts";
export {
  authenticateMachine,
  machineCredentialHash,
  MACHINE_CREDENTIAL_PREFIX,
  newMachineCredential,
  type AuthenticatedMachine,
} from "./machineCredential.ts";
export {
  AgentChannels,
  DEFAULT_AGENT_CALL_TIMEOUT_MS,
  DEFAULT_HEARTBEAT_MS,
  type AgentCallOptions,
  type AgentChannelEnd,
  type AgentChannelsOptions,
  type AgentConnection,
  type AgentEvent,
  type AgentSink,
  type ConnectingMachine,
  type MachineTarget,
} from "./agentChannels.ts";
export { machineBoxClient, type MachineBoxClient } from "./machineBoxClient.ts";
