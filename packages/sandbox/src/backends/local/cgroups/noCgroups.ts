import type { BoxCgroups, CgroupLimits, EnforcedLimits } from "./cgroupPort.ts";

/**
 * No cgroups (neither v2 with its controllers delegated nor writable v1 hierarchies): a box's
 * memory and CPU share are unlimited, and its processes are counted only by the RLIMIT_NPROC
 * of the box's own non-root uid, applied inside the box where its commands get that uid. This
 * adapter answers that number as `processes`, and has nothing to make, join, read or remove.
 */
export class NoCgroups implements BoxCgroups {
  readonly kind = "none" as const;

  create(_instanceId: string, limits: CgroupLimits): Promise<EnforcedLimits> {
    return Promise.resolve({ processes: limits.processes, memoryBytes: null, cpuWeight: null });
  }

  procsFiles(): readonly string[] {
    return [];
  }

  enforced(): Promise<EnforcedLimits | undefined> {
    return Promise.resolve(undefined);
  }

  members(): Promise<number[]> {
    return Promise.resolve([]);
  }

  remove(): Promise<void> {
    return Promise.resolve();
  }

  list(): Promise<string[]> {
    return Promise.resolve([]);
  }
}
