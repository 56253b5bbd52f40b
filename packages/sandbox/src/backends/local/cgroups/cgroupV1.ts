import { join } from "node:path";
import {
  exists,
  instanceFolders,
  makeBoxGroup,
  makeChain,
  parseLimit,
  pruneGroup,
  readControl,
  readPids,
  removeGroup,
  writeControl,
} from "./cgroupFiles.ts";
import {
  CgroupError,
  type BoxCgroups,
  type CgroupLimits,
  type CgroupTree,
  type EnforcedLimits,
} from "./cgroupPort.ts";

/** The v1 hierarchies a box's cgroup is made in, each mounted at <root>/<name>. */
const HIERARCHIES = ["pids", "memory", "cpu"] as const;
type Hierarchy = (typeof HIERARCHIES)[number];

/** cpu.shares for everyone's default: cpu.weight 100 is shares 1024, as systemd maps them. */
const DEFAULT_SHARES = 1024;
const DEFAULT_WEIGHT = 100;

/** cgroup v2's cpu.weight (1–10000) as v1's cpu.shares (2–262144), proportionally. */
export function sharesOfWeight(weight: number): number {
  return Math.min(262_144, Math.max(2, Math.round((weight * DEFAULT_SHARES) / DEFAULT_WEIGHT)));
}

export function weightOfShares(shares: number): number {
  return Math.max(1, Math.round((shares * DEFAULT_WEIGHT) / DEFAULT_SHARES));
}

/**
 * Box cgroups on the v1 hierarchies: `<root>/{pids,memory,cpu}/<parent>/<instance id>`, one per
 * hierarchy, which a box's processes join all three of. v1 has no delegation: where root can
 * make folders in the three mounts, the limits hold. Memory counts swap through
 * memory.memsw.limit_in_bytes where the kernel accounts swap, set to the same figure (no swap).
 */
export class CgroupV1 implements BoxCgroups {
  readonly kind = "v1" as const;
  readonly #tree: CgroupTree;
  readonly #parent: string;

  constructor(options: { readonly tree: CgroupTree; readonly parent: string }) {
    this.#tree = options.tree;
    this.#parent = options.parent;
  }

  /** Makes Berth's parent in each hierarchy; throws where one is not mounted or not writable. */
  async setUp(): Promise<void> {
    for (const hierarchy of HIERARCHIES) {
      const base = join(this.#tree.root, hierarchy);
      if (!(await exists(join(base, "cgroup.procs"))))
        throw new CgroupError({
          code: "unavailable",
          message: `no cgroup v1 ${hierarchy} hierarchy at ${base}`,
          path: base,
        });
      try {
        await makeChain({ tree: this.#tree, base, relative: this.#parent });
      } catch (error) {
        if (error instanceof CgroupError) throw error;
        throw new CgroupError({
          code: "unavailable",
          message: `cannot make ${join(base, this.#parent)}: ${error instanceof Error ? error.message : String(error)}`,
          path: base,
          cause: error,
        });
      }
    }
  }

  async create(instanceId: string, limits: CgroupLimits): Promise<EnforcedLimits> {
    // The parents again at each create: a removal or an operator may have taken them away.
    await makeBoxGroup({
      tree: this.#tree,
      paths: HIERARCHIES.map((hierarchy) => this.#group(hierarchy, instanceId)),
      setUp: () => this.setUp(),
    });
    await writeControl(join(this.#group("pids", instanceId), "pids.max"), String(limits.processes));
    await this.#limitMemory(this.#group("memory", instanceId), limits.memoryBytes);
    await writeControl(
      join(this.#group("cpu", instanceId), "cpu.shares"),
      String(sharesOfWeight(limits.cpuWeight)),
    );
    const enforced = await this.enforced(instanceId);
    if (enforced === undefined)
      throw new CgroupError({
        code: "unavailable",
        message: `the cgroups of ${instanceId} vanished while their limits were set`,
        path: this.#group("pids", instanceId),
      });
    return enforced;
  }

  /**
   * The kernel keeps memsw (memory + swap) at or above the memory limit at every write, so
   * memsw is opened first, then the limit set, then memsw brought down to it: a valid order
   * whether the limit rises or falls.
   */
  async #limitMemory(group: string, bytes: number): Promise<void> {
    const memsw = join(group, "memory.memsw.limit_in_bytes");
    const swapAccounted = await exists(memsw);
    if (swapAccounted) await writeControl(memsw, "-1");
    await writeControl(join(group, "memory.limit_in_bytes"), String(bytes));
    if (swapAccounted) await writeControl(memsw, String(bytes));
  }

  procsFiles(instanceId: string): readonly string[] {
    return HIERARCHIES.map((hierarchy) => join(this.#group(hierarchy, instanceId), "cgroup.procs"));
  }

  async enforced(instanceId: string): Promise<EnforcedLimits | undefined> {
    const groups = HIERARCHIES.map((hierarchy) => this.#group(hierarchy, instanceId));
    for (const group of groups) if (!(await exists(group))) return undefined;
    const shares = parseLimit(
      await readControl(join(this.#group("cpu", instanceId), "cpu.shares")),
    );
    return {
      processes: parseLimit(await readControl(join(this.#group("pids", instanceId), "pids.max"))),
      memoryBytes: parseLimit(
        await readControl(join(this.#group("memory", instanceId), "memory.limit_in_bytes")),
      ),
      cpuWeight: shares === null ? null : weightOfShares(shares),
    };
  }

  async members(instanceId: string): Promise<number[]> {
    const pids = new Set<number>();
    for (const file of this.procsFiles(instanceId))
      for (const pid of await readPids(file)) pids.add(pid);
    return [...pids].sort((a, b) => a - b);
  }

  async remove(instanceId: string): Promise<void> {
    for (const hierarchy of HIERARCHIES) {
      await removeGroup(this.#tree, this.#group(hierarchy, instanceId));
      await pruneGroup(this.#tree, join(this.#tree.root, hierarchy, this.#parent));
    }
  }

  async list(): Promise<string[]> {
    const ids = new Set<string>();
    for (const hierarchy of HIERARCHIES)
      for (const id of await instanceFolders(join(this.#tree.root, hierarchy, this.#parent)))
        ids.add(id);
    return [...ids].sort();
  }

  #group(hierarchy: Hierarchy, instanceId: string): string {
    return join(this.#tree.root, hierarchy, this.#parent, instanceId);
  }
}
