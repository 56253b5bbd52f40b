export { MACHINE_ONLINE_WINDOW_MS, readMachines, type MachinesScope } from "./readMachines.ts";
export type { MachineState, MachineView } from "./machineView.ts";
export {
  authenticateMachine,
  machineCredentialHash,
  MACHINE_CREDENTIAL_PREFIX,
  newMachineCredential,
  type AuthenticatedMachine,
} from "./machineCredential.ts";
