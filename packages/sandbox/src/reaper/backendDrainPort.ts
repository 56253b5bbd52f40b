import type { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { Backend } from "../spawner/backend.ts";
import type { DrainPort } from "./drainPort.ts";

/** The drain port over a real backend: capture through the archiver, stop terminates the box. */
export function backendDrainPort(options: {
  readonly backend: Backend;
  readonly archiver: WorkspaceArchiver;
}): DrainPort {
  return {
    capture: (lease, actor) => options.archiver.capture(lease, { actor }),
    stop: async (lease: LeaseSnapshot) => {
      if (lease.instanceId !== null) await options.backend.terminate(lease.instanceId);
    },
  };
}
