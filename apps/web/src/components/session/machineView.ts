import type { RouterOutputs } from "@berth/api";

/** One machine a session can run on, as `machines.list` answers it. */
export type MachineView = RouterOutputs["machines"]["list"][number];
