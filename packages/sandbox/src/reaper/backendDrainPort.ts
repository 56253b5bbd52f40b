import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { Backend } from "../spawner/backend.ts";
import type { CaptureResult, DrainPort } from "./drainPort.ts";

/**
 * The drain port over a real backend: stop terminates the box. Capture answers `unavailable`
 * until durable archives exist, so the reaper never reaches stop for a box with a workspace.
 */
export function backendDrainPort(backend: Backend): DrainPort {
  return {
    capture: (): Promise<CaptureResult> =>
      Promise.resolve({ kind: "unavailable", reason: "workspace archives are not available yet" }),
    stop: async (lease: LeaseSnapshot) => {
      if (lease.instanceId !== null) await backend.terminate(lease.instanceId);
    },
  };
}
