export { MACHINE_ONLINE_WINDOW_MS, readMachines, type MachinesScope } from "./readMachines.ts";
export type { MachineState, MachineView } from "./machineView.ts";
