export { readMachines } from "./readMachines.ts";
export type { MachineState, MachineView } from "./machineView.ts";
