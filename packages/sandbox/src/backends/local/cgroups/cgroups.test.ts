// The cgroup port's adapters: the contract suite against this machine's real v1 hierarchies
// (required under CI, which runs on such machines), against folders laid out like a v2 mount
// and like v1 mounts, and without cgroups; then detection, and what each adapter writes.
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { LocalBackendLogger } from "../logger.ts";
import { kernelCgroupTree } from "./cgroupFiles.ts";
import { cgroupContract, type CgroupFixture } from "./cgroupContract.ts";
import { CgroupV1, sharesOfWeight, weightOfShares } from "./cgroupV1.ts";
import { CgroupV2 } from "./cgroupV2.ts";
import { detectCgroups } from "./detectCgroups.ts";
import { folderCgroupTree } from "./folderCgroupTree.ts";
import { NoCgroups } from "./noCgroups.ts";

const ci = process.env.CI === "true" || process.env.CI === "1";
const HIERARCHIES = ["pids", "memory", "cpu"] as const;
const v1Here =
  process.getuid?.() === 0 &&
  HIERARCHIES.every((hierarchy) => existsSync(`/sys/fs/cgroup/${hierarchy}/cgroup.procs`));
const nonce = Math.random().toString(36).slice(2, 8);
/** The test's own cgroup under each real hierarchy, removed at the end. */
const testParent = `berth-t-${nonce}`;
const folders: string[] = [];

afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
  if (!v1Here) return;
  for (const hierarchy of HIERARCHIES) {
    for (const child of ["contract", "detect"])
      await rmdir(`/sys/fs/cgroup/${hierarchy}/${testParent}/${child}`).catch(() => undefined);
    await rmdir(`/sys/fs/cgroup/${hierarchy}/${testParent}`).catch(() => undefined);
  }
});

async function tempFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "berth-cgroups-"));
  folders.push(folder);
  return folder;
}

/** How /proc/<pid>/cgroup names a member of `path` in each hierarchy (its mount's own names). */
function procLinesFor(path: string): string[] {
  const own = readFileSync("/proc/self/cgroup", "utf8").split("\n");
  return HIERARCHIES.map((hierarchy) => {
    const line = own.find((entry) => entry.split(":")[1]?.split(",").includes(hierarchy));
    if (line === undefined) throw new Error(`no ${hierarchy} line in /proc/self/cgroup`);
    const [number, names] = line.split(":");
    return `${number ?? ""}:${names ?? ""}:/${path}`;
  });
}

function recordingLogger() {
  const lines: { level: string; details: object; message: string }[] = [];
  const logger: LocalBackendLogger = {
    info: (details, message) => lines.push({ level: "info", details, message }),
    warn: (details, message) => lines.push({ level: "warn", details, message }),
    error: (details, message) => lines.push({ level: "error", details, message }),
  };
  return { logger, lines };
}

describe.runIf(ci || v1Here)("on this machine's cgroup v1 hierarchies", () => {
  cgroupContract("v1, the kernel's", () => {
    const parent = `${testParent}/contract`;
    const fixture: CgroupFixture = {
      cgroups: new CgroupV1({ tree: kernelCgroupTree(), parent }),
      kernel: true,
      procLines: (instanceId) => procLinesFor(`${parent}/${instanceId}`),
      close: () => Promise.resolve(),
    };
    return Promise.resolve(fixture);
  });

  it("is what detection picks here, and the box cgroups are under Berth's parent", async () => {
    const { logger, lines } = recordingLogger();
    const parent = `${testParent}/detect`;
    const cgroups = await detectCgroups({ parent, logger });
    expect(cgroups.kind).toBe("v1");
    for (const hierarchy of HIERARCHIES)
      expect(existsSync(`/sys/fs/cgroup/${hierarchy}/${parent}`)).toBe(true);
    expect(lines).toMatchObject([{ level: "info", details: { cgroups: "v1" } }]);
  });
});

cgroupContract("v2, on a folder laid out like a v2 mount", async () => {
  const folder = await tempFolder();
  const tree = await folderCgroupTree({ root: join(folder, "cgroup"), layout: "v2" });
  return {
    cgroups: new CgroupV2({ tree, parent: "berth/data" }),
    kernel: false,
    close: () => Promise.resolve(),
  };
});

cgroupContract("v1, on folders laid out like v1 mounts", async () => {
  const folder = await tempFolder();
  const tree = await folderCgroupTree({ root: join(folder, "cgroup"), layout: "v1" });
  return {
    cgroups: new CgroupV1({ tree, parent: "berth/data" }),
    kernel: false,
    close: () => Promise.resolve(),
  };
});

cgroupContract("none", () =>
  Promise.resolve({ cgroups: new NoCgroups(), kernel: false, close: () => Promise.resolve() }),
);

describe("detectCgroups", () => {
  it("picks v2 where the controllers are given, v1 on v1 mounts, none elsewhere; logs each once", async () => {
    const cases = [
      { layout: "v2", controllers: undefined, kind: "v2", level: "info" },
      { layout: "v2", controllers: ["cpu", "io", "pids"], kind: "none", level: "warn" },
      { layout: "v1", controllers: undefined, kind: "v1", level: "info" },
      { layout: "empty", controllers: undefined, kind: "none", level: "warn" },
    ] as const;
    for (const { layout, controllers, kind, level } of cases) {
      const root = join(await tempFolder(), "cgroup");
      const tree =
        layout === "empty"
          ? kernelCgroupTree(root)
          : await folderCgroupTree({ root, layout, ...(controllers ? { controllers } : {}) });
      const { logger, lines } = recordingLogger();
      const first = await detectCgroups({ parent: "berth/data", logger, tree });
      const second = await detectCgroups({ parent: "berth/data", logger, tree });
      expect({ layout, kind: first.kind }).toEqual({ layout, kind });
      expect(second).toBe(first);
      expect(lines.map((line) => line.level)).toEqual([level]);
    }
  });

  it("says why a v2 mount is not used: the controller it is not given", async () => {
    const root = join(await tempFolder(), "cgroup");
    const tree = await folderCgroupTree({ root, layout: "v2", controllers: ["cpu", "pids"] });
    const { logger, lines } = recordingLogger();
    await detectCgroups({ parent: "berth", logger, tree });
    expect(JSON.stringify(lines[0]?.details)).toMatch(/not given the memory controller/);
  });
});

describe("CgroupV2", () => {
  it("enables pids, memory and cpu down to Berth's parent, only where missing, and turns swap off", async () => {
    const root = join(await tempFolder(), "cgroup");
    const tree = await folderCgroupTree({ root, layout: "v2" });
    // The machine already enables some below its root: they stay as they are.
    await writeFile(join(root, "cgroup.subtree_control"), "cpu io\n");
    const cgroups = new CgroupV2({ tree, parent: "berth/data" });
    await cgroups.create("box-one", { processes: 10, memoryBytes: 1 << 30, cpuWeight: 300 });
    const read = (path: string) => readFile(join(root, path), "utf8").then((text) => text.trim());
    expect((await read("cgroup.subtree_control")).split(" ").sort()).toEqual(
      ["cpu", "io", "memory", "pids"].sort(),
    );
    for (const level of ["berth", "berth/data"])
      expect((await read(`${level}/cgroup.subtree_control`)).split(" ").sort()).toEqual(
        ["cpu", "memory", "pids"].sort(),
      );
    expect(await read("berth/data/box-one/memory.swap.max")).toBe("0");
    expect(await read("berth/data/box-one/memory.max")).toBe(String(1 << 30));
    expect(await read("berth/data/box-one/cpu.weight")).toBe("300");
  });
});

describe("CgroupV1", () => {
  it("maps the CPU weight to shares proportionally (100 is 1024) and keeps memory+swap at memory", async () => {
    expect([1, 50, 100, 250, 10_000].map(sharesOfWeight)).toEqual([10, 512, 1024, 2560, 102_400]);
    for (const weight of [1, 50, 100, 250, 10_000])
      expect(weightOfShares(sharesOfWeight(weight))).toBe(weight);
    const root = join(await tempFolder(), "cgroup");
    const tree = await folderCgroupTree({ root, layout: "v1" });
    const cgroups = new CgroupV1({ tree, parent: "berth/data" });
    await cgroups.create("box-one", { processes: 10, memoryBytes: 1 << 30, cpuWeight: 250 });
    const read = (path: string) => readFile(join(root, path), "utf8").then((text) => text.trim());
    expect(await read("cpu/berth/data/box-one/cpu.shares")).toBe("2560");
    expect(await read("memory/berth/data/box-one/memory.memsw.limit_in_bytes")).toBe(
      String(1 << 30),
    );
    expect(await read("pids/berth/data/box-one/pids.max")).toBe("10");
  });
});
