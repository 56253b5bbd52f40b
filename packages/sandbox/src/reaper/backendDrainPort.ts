import type { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { BackendRegistry } from "../spawner/backendRegistry.ts";
import type { DrainPort } from "./drainPort.ts";

/**
 * The drain port over the real backends: capture through the archiver, stop terminates the box
 * in the backend its lease names.
 */
export function backendDrainPort(options: {
  readonly backends: BackendRegistry;
  readonly archiver: WorkspaceArchiver;
}): DrainPort {
  return {
    capture: (lease, actor) => options.archiver.capture(lease, { actor }),
    stop: async (lease: LeaseSnapshot) => {
      if (lease.instanceId !== null)
        await options.backends.backendFor(lease).terminate(lease.instanceId, { epoch: lease.epoch });
    },
  };
}
