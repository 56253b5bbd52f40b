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

/** The controllers a box's cgroup needs: processes, memory and CPU share. */
const CONTROLLERS = ["pids", "memory", "cpu"] as const;

/**
 * Box cgroups on the unified hierarchy (cgroup v2): `<root>/<parent>/<instance id>`. A child
 * only has the controllers its parent enables in cgroup.subtree_control, and a parent can only
 * enable what it was given itself (its cgroup.controllers): so each cgroup from the root down to
 * Berth's parent enables pids, memory and cpu for its children, and where any level was not
 * given them (the machine does not delegate them to Berth) this adapter is unavailable. The
 * levels below the root hold no process, as v2 requires of a cgroup that enables controllers.
 */
export class CgroupV2 implements BoxCgroups {
  readonly kind = "v2" as const;
  readonly #tree: CgroupTree;
  readonly #parent: string;

  constructor(options: { readonly tree: CgroupTree; readonly parent: string }) {
    this.#tree = options.tree;
    this.#parent = options.parent;
  }

  /** Makes Berth's parent with the controllers enabled below it; throws where it cannot be. */
  async setUp(): Promise<void> {
    await makeChain({
      tree: this.#tree,
      base: this.#tree.root,
      relative: this.#parent,
      beforeChild: (path) => this.#enableControllers(path),
    });
    await this.#enableControllers(this.#parentPath());
  }

  async create(instanceId: string, limits: CgroupLimits): Promise<EnforcedLimits> {
    const group = this.#group(instanceId);
    // The parents again at each create: a removal or an operator may have taken them away.
    await makeBoxGroup({ tree: this.#tree, paths: [group], setUp: () => this.setUp() });
    await writeControl(join(group, "pids.max"), String(limits.processes));
    await writeControl(join(group, "memory.max"), String(limits.memoryBytes));
    // Present where swap is accounted: none at all, so memory.max is the box's whole memory.
    const swap = join(group, "memory.swap.max");
    if (await exists(swap)) await writeControl(swap, "0");
    await writeControl(join(group, "cpu.weight"), String(limits.cpuWeight));
    const enforced = await this.enforced(instanceId);
    if (enforced === undefined) throw gone(group);
    return enforced;
  }

  procsFiles(instanceId: string): readonly string[] {
    return [join(this.#group(instanceId), "cgroup.procs")];
  }

  async enforced(instanceId: string): Promise<EnforcedLimits | undefined> {
    const group = this.#group(instanceId);
    if (!(await exists(group))) return undefined;
    return {
      processes: parseLimit(await readControl(join(group, "pids.max"))),
      memoryBytes: parseLimit(await readControl(join(group, "memory.max"))),
      cpuWeight: parseLimit(await readControl(join(group, "cpu.weight"))),
    };
  }

  members(instanceId: string): Promise<number[]> {
    return readPids(join(this.#group(instanceId), "cgroup.procs"));
  }

  async remove(instanceId: string): Promise<void> {
    await removeGroup(this.#tree, this.#group(instanceId));
    await pruneGroup(this.#tree, this.#parentPath());
  }

  list(): Promise<string[]> {
    return instanceFolders(this.#parentPath());
  }

  /** Enables the box controllers for the children of `path`, where it was given them. */
  async #enableControllers(path: string): Promise<void> {
    const given = (await readControl(join(path, "cgroup.controllers"))).split(/\s+/);
    const missing = CONTROLLERS.filter((controller) => !given.includes(controller));
    if (missing.length > 0)
      throw new CgroupError({
        code: "unavailable",
        message: `${path} is not given the ${missing.join(", ")} controller(s): this machine does not delegate them to Berth`,
        path,
      });
    const enabled = (await readControl(join(path, "cgroup.subtree_control")))
      .split(/\s+/)
      .filter(Boolean);
    const toEnable = CONTROLLERS.filter((controller) => !enabled.includes(controller));
    // Written only when one is missing (the root's settings are the whole machine's), and then
    // as the whole set: enabling one already enabled changes nothing.
    if (toEnable.length > 0)
      await writeControl(
        join(path, "cgroup.subtree_control"),
        [...enabled, ...toEnable].map((controller) => `+${controller}`).join(" "),
      );
  }

  #parentPath(): string {
    return join(this.#tree.root, this.#parent);
  }

  #group(instanceId: string): string {
    return join(this.#parentPath(), instanceId);
  }
}

function gone(group: string): CgroupError {
  return new CgroupError({
    code: "unavailable",
    message: `${group} vanished while its limits were set`,
    path: group,
  });
}
