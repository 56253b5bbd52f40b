// The cgroup port: how a box's processes, memory and CPU share are limited on this machine.
// Adapters: cgroupV2.ts (the unified hierarchy, where the machine delegates its controllers),
// cgroupV1.ts (the pids, memory and cpu hierarchies, where root can write them) and
// noCgroups.ts (neither). detectCgroups.ts picks one; cgroupContract.ts is the suite all pass.

/** What a box may use, as asked (BERTH_BOX_PIDS_MAX, BERTH_BOX_MEMORY_BYTES, BERTH_BOX_CPU_WEIGHT). */
export interface CgroupLimits {
  /** Most processes (threads included) alive at once in the box: boxd, bwrap, every command. */
  readonly processes: number;
  /** Most memory the box's processes may hold, page cache included, swap never. */
  readonly memoryBytes: number;
  /**
   * The box's share of CPU time when the CPUs are contended, on cgroup v2's scale: 1–10000,
   * 100 being everyone's default (v1 stores it as cpu.shares, 1024 for 100).
   */
  readonly cpuWeight: number;
}

/** What the kernel enforces for a box, read back from its cgroup; null where nothing is. */
export interface EnforcedLimits {
  readonly processes: number | null;
  readonly memoryBytes: number | null;
  readonly cpuWeight: number | null;
}

export type CgroupKind = "v2" | "v1" | "none";

/**
 * A box's cgroup(s), under Berth's own: `<hierarchy>/<parent>/<instance id>`. Every method is
 * idempotent, and none holds state between calls: a backend in another process (or after a
 * restart) sees the same cgroups.
 */
export interface BoxCgroups {
  readonly kind: CgroupKind;
  /**
   * Makes the box's cgroup (or keeps the one there) and sets its limits; answers what is then
   * enforced. Without cgroups (`none`) only `processes` is answered: the number to apply as the
   * RLIMIT_NPROC of the box's own uid, memory and CPU being unlimited.
   */
  create(instanceId: string, limits: CgroupLimits): Promise<EnforcedLimits>;
  /**
   * The cgroup.procs files a process writes its own pid into to join the box's cgroup — one per
   * hierarchy, none without cgroups. cgroupPrelude.ts has a process join before it runs bwrap.
   */
  procsFiles(instanceId: string): readonly string[];
  /** What is enforced now, read from the kernel; undefined when the box has no cgroup. */
  enforced(instanceId: string): Promise<EnforcedLimits | undefined>;
  /** The pids in the box's cgroup (any hierarchy). */
  members(instanceId: string): Promise<number[]>;
  /**
   * Ends whatever still runs in the box's cgroup (SIGKILL: its members are the box's by
   * construction) and removes it once the kernel lets it go, and Berth's parent with it when no
   * other box's is left there. A box without one is done.
   */
  remove(instanceId: string): Promise<void>;
  /** The instance ids that have a cgroup under Berth's parent (for the sweep). */
  list(): Promise<string[]>;
}

export type CgroupErrorCode =
  /** The hierarchy is not there, not writable, or does not give the controllers Berth needs. */
  | "unavailable"
  /** The cgroup still held processes when its removal's time was up. */
  | "busy";

/** A cgroup operation that failed, with the path it failed on. */
export class CgroupError extends Error {
  override readonly name = "CgroupError";
  readonly code: CgroupErrorCode;
  readonly path: string;

  constructor(options: { code: CgroupErrorCode; message: string; path: string; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.code = options.code;
    this.path = options.path;
  }
}

/**
 * How cgroups come and go under a mount root. On cgroupfs (kernelCgroupTree) a mkdir makes a
 * cgroup, which the kernel fills with its control files, and rmdir removes it once no process
 * is left in it. A plain folder laid out like cgroupfs (folderCgroupTree, for tests) does what
 * the kernel would there. Control files are read and written as files in both.
 */
export interface CgroupTree {
  /** Where the hierarchies are: /sys/fs/cgroup (v2's mount, or the folder of v1's mounts). */
  readonly root: string;
  /** Makes one cgroup (its parent exists); one already there is kept. */
  makeGroup(path: string): Promise<void>;
  /** Removes one cgroup; EBUSY while processes remain in it, nothing when it is gone. */
  removeGroup(path: string): Promise<void>;
}
