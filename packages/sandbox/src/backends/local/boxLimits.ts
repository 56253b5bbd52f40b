import { createHash } from "node:crypto";
import { join } from "node:path";
import type { BoxLimits } from "../../spawner/backend.ts";
import type { CgroupLimits, EnforcedLimits } from "./cgroups/cgroupPort.ts";

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** What each local box may use: its cgroup's limits and its workspace's size. */
export interface BoxLimitSettings extends CgroupLimits {
  /** What the workspace may hold before boxd refuses writes (BOXD_DISK_BYTES). */
  readonly diskBytes: number;
}

/**
 * The defaults: 512 processes (an agent's builds and test runners, with room, but no fork
 * bomb), 2 GiB of memory, everyone's CPU weight, and a 10 GiB workspace.
 */
export const DEFAULT_BOX_LIMITS: BoxLimitSettings = {
  processes: 512,
  memoryBytes: 2 * GiB,
  cpuWeight: 100,
  diskBytes: 10 * GiB,
};

/**
 * The smallest limits a box still starts under: boxd alone is some 20 threads (pids.max counts
 * each) and about 60 MiB.
 */
export const LIMIT_BOUNDS = {
  processes: { min: 32, max: 4_194_304 },
  memoryBytes: { min: 64 * MiB, max: Number.MAX_SAFE_INTEGER },
  cpuWeight: { min: 1, max: 10_000 },
  diskBytes: { min: 1 * MiB, max: Number.MAX_SAFE_INTEGER },
} as const satisfies Record<keyof BoxLimitSettings, { min: number; max: number }>;

/** A box's record of a start's limits: what its cgroup enforces, and the workspace's size. */
export function recordedLimits(enforced: EnforcedLimits, diskBytes: number): BoxLimits {
  return { ...enforced, diskBytes };
}

/**
 * The cgroup parent of one data folder's boxes: `<parent>/<hash of the data folder>`. Instance
 * ids are unique within a data folder only, and the sweep removes the cgroups whose box folder
 * is gone: each data folder keeps to its own.
 */
export function cgroupParentFor(parent: string, dataDir: string): string {
  return join(parent, createHash("sha256").update(dataDir).digest("hex").slice(0, 12));
}
