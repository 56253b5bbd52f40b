import type { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { BackendRegistry } from "../spawner/backendRegistry.ts";
import type { DrainPort } from "./drainPort.ts";

/**
 * The drain port over the real backends: capture through the archiver; stop terminates the box
 * in the backend its lease names; park (after a published capture) suspends it with its disk
 * where that backend keeps disks across a drain (`drainKeepsDisk`: Kubernetes), and terminates
 * it elsewhere (local). Every write is fenced at the lease's epoch.
 */
export function backendDrainPort(options: {
  readonly backends: BackendRegistry;
  readonly archiver: WorkspaceArchiver;
}): DrainPort {
  const terminate = async (lease: LeaseSnapshot, instanceId: string | null) => {
    if (instanceId !== null)
      await options.backends.backendFor(lease).terminate(instanceId, { epoch: lease.epoch });
  };
  return {
    capture: (lease, actor) => options.archiver.capture(lease, { actor }),
    stop: (lease) => terminate(lease, lease.instanceId),
    park: async (lease) => {
      const backend = options.backends.backendFor(lease);
      if (backend.drainKeepsDisk !== true || lease.instanceId === null) {
        await terminate(lease, lease.instanceId);
        return "terminated";
      }
      await backend.suspend(lease.instanceId, { epoch: lease.epoch });
      return "suspended";
    },
    deleteSuspended: (lease, instanceId) => terminate(lease, instanceId),
  };
}
