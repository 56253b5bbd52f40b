import { join } from "node:path";
import type { LocalBackendLogger } from "../logger.ts";
import { exists, kernelCgroupTree } from "./cgroupFiles.ts";
import type { BoxCgroups, CgroupTree } from "./cgroupPort.ts";
import { CgroupV1 } from "./cgroupV1.ts";
import { CgroupV2 } from "./cgroupV2.ts";
import { NoCgroups } from "./noCgroups.ts";

const detected = new Map<string, Promise<BoxCgroups>>();

/**
 * The cgroup adapter boxes get on this machine, under `parent` (relative to each hierarchy's
 * root): v2 where /sys/fs/cgroup is the unified hierarchy and Berth's parent can be given pids,
 * memory and cpu; else v1 where the pids, memory and cpu hierarchies are mounted and root can
 * make Berth's parent in them (a hybrid machine's empty /sys/fs/cgroup/unified is not v2);
 * else none. Decided once per tree and parent in a process, and logged then.
 */
export function detectCgroups(options: {
  readonly parent: string;
  readonly logger: LocalBackendLogger;
  readonly tree?: CgroupTree;
}): Promise<BoxCgroups> {
  const tree = options.tree ?? kernelCgroupTree();
  const key = `${tree.root}\0${options.parent}`;
  let found = detected.get(key);
  if (found === undefined) {
    found = detect(tree, options);
    detected.set(key, found);
  }
  return found;
}

async function detect(
  tree: CgroupTree,
  options: { readonly parent: string; readonly logger: LocalBackendLogger },
): Promise<BoxCgroups> {
  const { parent, logger } = options;
  const reasons: string[] = [];
  if (await exists(join(tree.root, "cgroup.controllers"))) {
    const v2 = new CgroupV2({ tree, parent });
    const problem = await setUpProblem(() => v2.setUp());
    if (problem === undefined) {
      logger.info({ cgroups: "v2", root: tree.root, parent }, "box limits: cgroup v2");
      return v2;
    }
    reasons.push(`v2: ${problem}`);
  } else {
    reasons.push(`v2: ${tree.root} is not a cgroup v2 mount`);
  }
  const v1 = new CgroupV1({ tree, parent });
  const problem = await setUpProblem(() => v1.setUp());
  if (problem === undefined) {
    logger.info(
      { cgroups: "v1", root: tree.root, parent },
      "box limits: cgroup v1 (pids, memory, cpu)",
    );
    return v1;
  }
  reasons.push(`v1: ${problem}`);
  logger.warn(
    { cgroups: "none", root: tree.root, reasons },
    "no cgroups for box limits: memory and CPU are unlimited, processes only limited by RLIMIT_NPROC in the box",
  );
  return new NoCgroups();
}

async function setUpProblem(setUp: () => Promise<void>): Promise<string | undefined> {
  try {
    await setUp();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
