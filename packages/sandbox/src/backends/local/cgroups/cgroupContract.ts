import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendSignal } from "../../../processes/processInfo.ts";
import { joiningCgroups } from "./cgroupPrelude.ts";
import type { BoxCgroups, CgroupLimits, EnforcedLimits } from "./cgroupPort.ts";

/** One adapter, over one tree, as the contract suite runs it. */
export interface CgroupFixture {
  readonly cgroups: BoxCgroups;
  /**
   * Whether the tree is the kernel's: only there does a fork land in its parent's cgroup by
   * itself and does /proc/<pid>/cgroup name it. A folder laid out like cgroupfs records what
   * was written to it and no more, and the suite asks no more of it.
   */
  readonly kernel: boolean;
  /** The line /proc/<pid>/cgroup shows for a member of the box, per hierarchy (kernel only). */
  readonly procLines?: (instanceId: string) => readonly string[];
  close(): Promise<void>;
}

const MiB = 1024 * 1024;
// Page-aligned, so the kernel (which rounds a memory limit down to a page) keeps them exact.
const LIMITS: CgroupLimits = { processes: 64, memoryBytes: 256 * MiB, cpuWeight: 100 };
const RAISED: CgroupLimits = { processes: 200, memoryBytes: 512 * MiB, cpuWeight: 250 };
const LOWERED: CgroupLimits = { processes: 32, memoryBytes: 128 * MiB, cpuWeight: 50 };

function expectedOf(cgroups: BoxCgroups, limits: CgroupLimits): EnforcedLimits {
  // Without cgroups only the process count is answered: the RLIMIT_NPROC to apply in the box.
  if (cgroups.kind === "none")
    return { processes: limits.processes, memoryBytes: null, cpuWeight: null };
  return { ...limits };
}

/** A process started as local boxes start bwrap: through the prelude that joins the cgroups. */
function startJoined(cgroups: BoxCgroups, instanceId: string, script: string): ChildProcess {
  const argv = joiningCgroups(cgroups.procsFiles(instanceId), ["/bin/sh", "-c", script]);
  return spawn(argv[0] ?? "/bin/sh", argv.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
}

async function firstLines(child: ChildProcess, count: number): Promise<string[]> {
  const stdout = child.stdout;
  if (stdout === null) throw new Error("no stdout");
  let text = "";
  for await (const chunk of stdout) {
    text += String(chunk);
    if (text.split("\n").length > count) break;
  }
  return text.split("\n").slice(0, count);
}

/**
 * The cgroup port's contract: every adapter passes it, on the kernel's tree where this machine
 * has one and on folders laid out like cgroupfs.
 */
export function cgroupContract(name: string, open: () => Promise<CgroupFixture>): void {
  describe(`BoxCgroups contract: ${name}`, () => {
    let fixture: CgroupFixture;
    const nonce = Math.random().toString(36).slice(2, 8);
    const id = (box: string) => `box-contract-${box}-${nonce}`;
    const children: ChildProcess[] = [];
    /** Forked by the suite's processes: a folder tree's removal cannot know of them. */
    const strays: number[] = [];

    beforeAll(async () => {
      fixture = await open();
    });

    afterAll(async () => {
      for (const child of children) child.kill("SIGKILL");
      for (const pid of strays) sendSignal(pid, "SIGKILL");
      for (const box of await fixture.cgroups.list()) await fixture.cgroups.remove(box);
      await fixture.close();
    });

    it("creates a box's cgroup with its limits and reads back what is enforced", async () => {
      const { cgroups } = fixture;
      const created = await cgroups.create(id("a"), LIMITS);
      expect(created).toEqual(expectedOf(cgroups, LIMITS));
      if (cgroups.kind === "none") {
        expect(await cgroups.enforced(id("a"))).toBeUndefined();
        expect(cgroups.procsFiles(id("a"))).toEqual([]);
      } else {
        expect(await cgroups.enforced(id("a"))).toEqual(created);
        expect(cgroups.procsFiles(id("a")).length).toBeGreaterThan(0);
      }
      expect(await cgroups.enforced(id("never-made"))).toBeUndefined();
    });

    it("created again (a restart) keeps its one cgroup and takes the new limits, raised or lowered", async () => {
      const { cgroups } = fixture;
      for (const limits of [RAISED, LOWERED, LIMITS]) {
        expect(await cgroups.create(id("b"), limits)).toEqual(expectedOf(cgroups, limits));
        if (cgroups.kind !== "none")
          expect(await cgroups.enforced(id("b"))).toEqual(expectedOf(cgroups, limits));
      }
      expect((await cgroups.list()).filter((box) => box === id("b")).length).toBe(
        cgroups.kind === "none" ? 0 : 1,
      );
    });

    it("holds a process started through the prelude from its first instruction, and what it forks", async () => {
      const { cgroups } = fixture;
      await cgroups.create(id("c"), LIMITS);
      // The shell reports its own cgroups, then forks a sleeper and reports its pid.
      const child = startJoined(
        cgroups,
        id("c"),
        'cat /proc/$$/cgroup | tr "\\n" " "; echo; sleep 30 & echo $!; wait',
      );
      children.push(child);
      const [cgroupLine = "", sleeper = ""] = await firstLines(child, 2);
      strays.push(Number(sleeper));
      const pid = child.pid ?? -1;
      const members = await cgroups.members(id("c"));
      if (cgroups.kind === "none") {
        expect(members).toEqual([]);
        return;
      }
      // exec kept the shell's pid: the process spawned is the member.
      expect(members).toContain(pid);
      if (fixture.kernel) {
        expect(members).toContain(Number(sleeper));
        for (const line of fixture.procLines?.(id("c")) ?? []) expect(cgroupLine).toContain(line);
        const forked = await readFile(`/proc/${sleeper}/cgroup`, "utf8");
        for (const line of fixture.procLines?.(id("c")) ?? []) expect(forked).toContain(line);
      }
    });

    it("removes a cgroup with everything still in it killed, lists only what is left, and removes twice", async () => {
      const { cgroups } = fixture;
      await cgroups.create(id("d"), LIMITS);
      await cgroups.create(id("e"), LIMITS);
      const child = startJoined(cgroups, id("d"), "echo up; exec sleep 30");
      children.push(child);
      await firstLines(child, 1);
      const exited = once(child, "exit");
      if (cgroups.kind !== "none") {
        expect(await cgroups.list()).toEqual(expect.arrayContaining([id("d"), id("e")]));
      }

      await cgroups.remove(id("d"));
      expect(await cgroups.enforced(id("d"))).toBeUndefined();
      expect(await cgroups.members(id("d"))).toEqual([]);
      expect(await cgroups.list()).not.toContain(id("d"));
      if (cgroups.kind === "none") {
        // Nothing to remove, and nothing killed: no cgroup held the process.
        child.kill("SIGKILL");
      }
      const [, signal] = (await exited) as [number | null, NodeJS.Signals | null];
      expect(signal).toBe("SIGKILL");
      await cgroups.remove(id("d"));
      await cgroups.remove(id("never-made"));
      if (cgroups.kind !== "none") expect(await cgroups.list()).toContain(id("e"));
    });
  });
}
