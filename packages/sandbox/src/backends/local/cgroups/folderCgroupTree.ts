import { mkdir, readdir, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import type { CgroupTree } from "./cgroupPort.ts";

// A plain folder laid out like cgroupfs, for the contract suite to run the adapters against on a
// machine that does not mount that hierarchy (the v2 code on this v1 machine). It does what the
// kernel does at a mkdir and an rmdir, and nothing at a write: a limit written is a limit read
// back, and a pid written to cgroup.procs stays listed (the suite's processes live until the
// removal kills them). As a kernel before 5.14, it has no cgroup.kill.

/** v1's unlimited memory: 2^63 - 1 rounded down to a 4 KiB page. */
const V1_UNLIMITED = "9223372036854771712";

/** The controllers a v2 root offers, as a typical machine's. */
export const V2_CONTROLLERS = ["cpuset", "cpu", "io", "memory", "hugetlb", "pids", "rdma", "misc"];

/** The files the kernel fills a new cgroup with (the ones Berth reads or writes, and a few). */
const V2_FILES = {
  common: { "cgroup.procs": "", "cgroup.subtree_control": "", "cgroup.type": "domain" },
  pids: { "pids.max": "max", "pids.current": "0" },
  memory: { "memory.max": "max", "memory.swap.max": "max", "memory.current": "0" },
  cpu: { "cpu.weight": "100", "cpu.max": "max 100000" },
} as const;

const V1_FILES = {
  common: { "cgroup.procs": "", tasks: "", notify_on_release: "0" },
  pids: { "pids.max": "max", "pids.current": "0" },
  memory: {
    "memory.limit_in_bytes": V1_UNLIMITED,
    "memory.memsw.limit_in_bytes": V1_UNLIMITED,
    "memory.usage_in_bytes": "0",
  },
  cpu: { "cpu.shares": "1024", "cpu.cfs_quota_us": "-1" },
} as const;

async function writeFiles(folder: string, files: Readonly<Record<string, string>>): Promise<void> {
  for (const [name, text] of Object.entries(files))
    await writeFile(join(folder, name), `${text}\n`);
}

/**
 * Lays out a v2 mount at `root` (its root cgroup offering `controllers`) or v1 mounts (pids,
 * memory and cpu folders), and answers the tree that makes and removes cgroups in it.
 */
export async function folderCgroupTree(options: {
  readonly root: string;
  readonly layout: "v2" | "v1";
  readonly controllers?: readonly string[];
}): Promise<CgroupTree> {
  const { root } = options;
  if (options.layout === "v2") {
    await mkdir(root, { recursive: true });
    await writeFiles(root, {
      "cgroup.controllers": (options.controllers ?? V2_CONTROLLERS).join(" "),
      "cgroup.procs": "",
      "cgroup.subtree_control": "",
    });
    return { root, makeGroup: (path) => makeV2Group(path), removeGroup };
  }
  for (const hierarchy of ["pids", "memory", "cpu"] as const) {
    const base = join(root, hierarchy);
    await mkdir(base, { recursive: true });
    await writeFiles(base, { "cgroup.procs": "", tasks: "" });
  }
  return {
    root,
    makeGroup: (path) => makeV1Group(path, relative(root, path).split("/")[0] ?? ""),
    removeGroup,
  };
}

async function makeV2Group(path: string): Promise<void> {
  if (await isFolder(path)) return;
  // The kernel shows subtree_control as the controllers enabled, however they were written.
  const control = join(dirname(path), "cgroup.subtree_control");
  const enabled = new Set<string>();
  for (const token of (await readFile(control, "utf8")).split(/\s+/).filter(Boolean)) {
    if (token.startsWith("-")) enabled.delete(token.slice(1));
    else enabled.add(token.replace(/^\+/, ""));
  }
  await writeFile(control, `${[...enabled].join(" ")}\n`);
  await mkdir(path);
  await writeFiles(path, { ...V2_FILES.common, "cgroup.controllers": [...enabled].join(" ") });
  for (const controller of ["pids", "memory", "cpu"] as const)
    if (enabled.has(controller)) await writeFiles(path, V2_FILES[controller]);
}

async function makeV1Group(path: string, hierarchy: string): Promise<void> {
  if (await isFolder(path)) return;
  await mkdir(path);
  await writeFiles(path, V1_FILES.common);
  if (hierarchy === "pids" || hierarchy === "memory" || hierarchy === "cpu")
    await writeFiles(path, V1_FILES[hierarchy]);
}

/** rmdir as cgroupfs does it: the control files go with the folder; a child cgroup refuses it. */
async function removeGroup(path: string): Promise<void> {
  let entries;
  try {
    entries = await readdir(path, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (entries.some((entry) => entry.isDirectory()))
    throw Object.assign(new Error(`EBUSY: ${basename(path)} has child cgroups`), { code: "EBUSY" });
  for (const entry of entries) await rm(join(path, entry.name));
  await rmdir(path);
}

async function isFolder(path: string): Promise<boolean> {
  try {
    await readdir(path);
    return true;
  } catch {
    return false;
  }
}
