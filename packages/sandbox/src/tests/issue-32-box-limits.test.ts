// Limits that hold (issue 32): real bubblewrap boxes in their cgroups on this machine's v1
// hierarchies. A fork bomb and a 4 GiB allocation in one box are stopped by its own limits while
// its neighbour still answers; its workspace refuses a write past its disk limit and loses
// nothing; its cgroup goes with it. Both boxes run under the test's own cgroup, capped lower than
// the machine (pids and memory), and every exec under a timeout: a broken box limit fails the
// test, not the machine.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rename, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BoxClient } from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BoxMetadata } from "../spawner/backend.ts";
import { testBoxMetadata } from "./boxMetadata.ts";
import { boxLayout, readBoxRecord } from "../backends/local/boxFolder.ts";
import { cgroupParentFor } from "../backends/local/boxLimits.ts";
import { probeBubblewrap } from "../backends/local/bubblewrap.ts";
import { LocalBackend } from "../backends/local/localBackend.ts";
import { childPids } from "../processes/processInfo.ts";
import { localExecutionProfile } from "../spawner/executionProfile.ts";

const MiB = 1024 * 1024;
const ci = process.env.CI === "true" || process.env.CI === "1";
const HIERARCHIES = ["pids", "memory", "cpu"] as const;
const v1Here =
  process.getuid?.() === 0 &&
  HIERARCHIES.every((hierarchy) => existsSync(`/sys/fs/cgroup/${hierarchy}/cgroup.procs`));
// Under CI (these machines: root, bubblewrap, cgroup v1) nothing is skipped.
const runnable = ci || (v1Here && (await probeBubblewrap("bwrap")).ok);

const LIMITS = { processes: 128, memoryBytes: 320 * MiB, cpuWeight: 100, diskBytes: 16 * MiB };
/** The test's own caps around both boxes: above theirs, far below the machine's. */
const OUTER = { processes: 400, memoryBytes: 1024 * MiB };
const nonce = randomBytes(3).toString("hex");
const outer = `berth-t-${nonce}`;
const secret = randomBytes(32).toString("hex");

let dataDir = "";
let backend: LocalBackend;
let loud: { instanceId: string; client: BoxClient };
let quiet: { instanceId: string; client: BoxClient };

function metadata(name: string): BoxMetadata {
  return testBoxMetadata(name, nonce);
}

/** The box's cgroup in one hierarchy, on the host. */
function cgroupOf(hierarchy: (typeof HIERARCHIES)[number], instanceId: string): string {
  return join("/sys/fs/cgroup", hierarchy, cgroupParentFor(outer, dataDir), instanceId);
}

function control(path: string): string {
  return readFileSync(path, "utf8").trim();
}

/** `pids.events`' count of forks refused for the limit. */
function forksRefused(group: string): number {
  return Number(/max (\d+)/.exec(control(join(group, "pids.events")))?.[1] ?? Number.NaN);
}

/**
 * Refuses to go on unless the box's init is in the box's pids and memory cgroups: a bomb or an
 * allocation outside them would be under no cap at all, the test's included.
 */
async function assertContained(instanceId: string): Promise<void> {
  const record = await readBoxRecord(boxLayout({ dataDir, instanceId }));
  const own = control(`/proc/${String(record?.boxd?.pid ?? 0)}/cgroup`);
  for (const hierarchy of ["pids", "memory"] as const) {
    const path = cgroupOf(hierarchy, instanceId).slice(`/sys/fs/cgroup/${hierarchy}`.length);
    if (!own.split("\n").some((line) => line.endsWith(`:${hierarchy}:${path}`)))
      throw new Error(`${instanceId} is not in its ${hierarchy} cgroup (${path}): not run`);
  }
}

/** Alive, not a zombie (a zombie waits only to be reaped). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX] /.test(control(`/proc/${String(pid)}/stat`));
  } catch {
    return false;
  }
}

async function open(name: string) {
  const { instanceId } = await backend.create({
    metadata: metadata(name),
    profile: localExecutionProfile,
  });
  return { instanceId, client: await backend.connect(instanceId) };
}

/** The box's lasting host processes: bwrap, its sandbox init, and boxd below that. */
async function boxProcesses(instanceId: string): Promise<number[]> {
  const record = await readBoxRecord(boxLayout({ dataDir, instanceId }));
  if (record?.boxd == null) throw new Error(`${instanceId} is not running`);
  const init = record.boxd.pid;
  const bwrap = Number(/^\d+ \(.*\) \S (\d+)/.exec(control(`/proc/${String(init)}/stat`))?.[1]);
  return [bwrap, init, ...(await childPids(init))];
}

beforeAll(async () => {
  if (!runnable) return;
  dataDir = await realpath(await mkdtemp(join(tmpdir(), "berth-limits-")));
  for (const hierarchy of HIERARCHIES) await mkdir(`/sys/fs/cgroup/${hierarchy}/${outer}`);
  await writeFile(`/sys/fs/cgroup/pids/${outer}/pids.max`, String(OUTER.processes));
  await writeFile(
    `/sys/fs/cgroup/memory/${outer}/memory.limit_in_bytes`,
    String(OUTER.memoryBytes),
  );
  const memsw = `/sys/fs/cgroup/memory/${outer}/memory.memsw.limit_in_bytes`;
  if (existsSync(memsw)) await writeFile(memsw, String(OUTER.memoryBytes));
  backend = new LocalBackend({
    dataDir,
    secret,
    isolation: "bubblewrap",
    network: "none",
    cgroupParent: outer,
    limits: LIMITS,
  });
  [loud, quiet] = await Promise.all([open("loud"), open("quiet")]);
}, 60_000);

afterAll(async () => {
  if (!runnable) return;
  for (const box of await backend.inventory()) await backend.terminate(box.instanceId);
  for (const hierarchy of HIERARCHIES) {
    await rmdir(join("/sys/fs/cgroup", hierarchy, cgroupParentFor(outer, dataDir))).catch(
      () => undefined,
    );
    await rmdir(`/sys/fs/cgroup/${hierarchy}/${outer}`);
  }
  await rm(dataDir, { recursive: true, force: true });
});

describe.runIf(runnable)("a box's limits hold", () => {
  it("puts every process of each box in its own cgroups, with the limits recorded and listed", async () => {
    for (const box of [loud, quiet]) {
      const members = new Set(
        HIERARCHIES.flatMap((hierarchy) =>
          control(join(cgroupOf(hierarchy, box.instanceId), "cgroup.procs"))
            .split("\n")
            .map(Number),
        ),
      );
      const processes = await boxProcesses(box.instanceId);
      expect(processes.length).toBeGreaterThanOrEqual(3);
      for (const pid of processes) expect(members.has(pid), `pid ${String(pid)}`).toBe(true);
      expect(control(join(cgroupOf("pids", box.instanceId), "pids.max"))).toBe("128");
      expect(
        (await readBoxRecord(boxLayout({ dataDir, instanceId: box.instanceId })))?.limits,
      ).toEqual(LIMITS);
    }
    const listed = await backend.inventory();
    expect(listed.map((box) => box.limits)).toEqual([LIMITS, LIMITS]);
  });

  it("stops a fork bomb at the box's process limit while the other box answers", async () => {
    await assertContained(loud.instanceId);
    const group = cgroupOf("pids", loud.instanceId);
    // boxd and bwrap alone are some 20 tasks (each thread counts): well under the limit.
    const baseline = Number(control(join(group, "pids.current")));
    expect(baseline).toBeLessThan(LIMITS.processes / 2);
    // The shell becomes a sleep once the bomb is away (an exec needs no fork), so the exec runs
    // until its timeout kills its process group: the sleep and the whole bomb with it.
    const bomb = loud.client.exec({
      argv: ["sh", "-c", "bomb() { bomb | bomb & }; bomb & exec sleep 30"],
      timeoutMs: 3_000,
    });
    // Until the kernel has refused the bomb forks (it does within milliseconds).
    const deadline = Date.now() + 3_000;
    while (forksRefused(group) === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(forksRefused(group)).toBeGreaterThan(0);
    expect((await quiet.client.exec({ argv: ["true"], timeoutMs: 10_000 })).exitCode).toBe(0);
    expect((await bomb).timedOut).toBe(true);

    expect(Number(control(join(group, "pids.peak")))).toBeLessThanOrEqual(LIMITS.processes);
    // The test's own cap never had to act: the box's limit did.
    expect(forksRefused(`/sys/fs/cgroup/pids/${outer}`)).toBe(0);
    // Killed with its group: the box is back to its own few processes.
    const settled = Date.now() + 5_000;
    while (Number(control(join(group, "pids.current"))) > baseline && Date.now() < settled)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(Number(control(join(group, "pids.current")))).toBeLessThanOrEqual(baseline);
    // The box itself lives on once its bomb is gone.
    expect((await loud.client.exec({ argv: ["true"], timeoutMs: 10_000 })).exitCode).toBe(0);
  }, 30_000);

  it("kills a 4 GiB allocation at the box's memory limit while the other box answers", async () => {
    await assertContained(loud.instanceId);
    const group = cgroupOf("memory", loud.instanceId);
    // 64 chunks of 64 MiB, each filled (touched), the count printed after each.
    const script =
      "const kept = []; for (let i = 1; i <= 64; i++) { kept.push(Buffer.alloc(64 * 1024 * 1024, 1)); console.log(i); }";
    const [allocation, neighbour] = await Promise.all([
      loud.client.exec({ argv: ["node", "-e", script], timeoutMs: 20_000 }),
      quiet.client.exec({ argv: ["true"], timeoutMs: 10_000 }),
    ]);
    expect(neighbour.exitCode).toBe(0);
    expect(allocation.signal).toBe("SIGKILL");
    expect(allocation.timedOut).toBe(false);
    const reached = Number(allocation.stdout.trim().split("\n").at(-1) ?? 0) * 64 * MiB;
    expect(reached).toBeLessThan(LIMITS.memoryBytes);
    expect(Number(control(join(group, "memory.max_usage_in_bytes")))).toBeLessThanOrEqual(
      LIMITS.memoryBytes,
    );
    // The kernel's OOM killer acted in the box's own cgroup.
    expect(Number(/oom_kill (\d+)/.exec(control(join(group, "memory.oom_control")))?.[1])).toBe(1);
    // The OOM killer chose the allocation, not boxd: the box still serves.
    expect((await loud.client.exec({ argv: ["true"] })).exitCode).toBe(0);
  }, 30_000);

  it("refuses a write past the disk limit with disk_full and loses nothing of the workspace", async () => {
    const box = loud.client;
    await box.write({ path: "notes/kept.txt", content: "kept\n", createParents: true });
    const big = randomBytes(6 * MiB).toString("base64");
    await box.write({ path: "big.bin", content: big, encoding: "base64" });
    // Past the limit in one upload: refused, and nothing of it written.
    await expect(
      box.upload({ path: "bigger.bin", body: randomBytes(12 * MiB) }),
    ).rejects.toMatchObject({ name: "BoxError", code: "disk_full" });
    // A command passes it (nothing stops a command mid-write); then every write is refused.
    const fill = await box.exec({ argv: ["sh", "-c", "head -c 12582912 /dev/zero > fill.bin"] });
    expect(fill.exitCode).toBe(0);
    await expect(box.write({ path: "notes/kept.txt", content: "lost?\n" })).rejects.toMatchObject({
      code: "disk_full",
    });
    expect((await box.read({ path: "notes/kept.txt" })).content).toBe("kept\n");
    expect((await box.stat({ path: "big.bin" })).entry.size).toBe(6 * MiB);
    expect((await box.list({ path: "" })).entries.map((entry) => entry.name).sort()).toEqual([
      "big.bin",
      "fill.bin",
      "notes",
    ]);
    // Room made again: writes are taken.
    await box.remove({ path: "fill.bin" });
    await box.write({ path: "notes/kept.txt", content: "kept, again\n" });
  });

  it("sweeps the cgroup of a box whose folder is gone, killing what still ran in it", async () => {
    const stale = await open("stale");
    const processes = await boxProcesses(stale.instanceId);
    // Its folder taken away while it runs, as by hand: no terminate will come for it.
    const layout = boxLayout({ dataDir, instanceId: stale.instanceId });
    await rename(layout.folder, join(dataDir, "taken-away"));
    expect((await backend.inventory()).map((box) => box.instanceId)).not.toContain(
      stale.instanceId,
    );
    for (const hierarchy of HIERARCHIES)
      expect(existsSync(cgroupOf(hierarchy, stale.instanceId)), hierarchy).toBe(false);
    for (const pid of processes) expect(running(pid), `pid ${String(pid)}`).toBe(false);
    await rm(join(dataDir, "taken-away"), { recursive: true, force: true });
  });

  it("removes a box's cgroups when it is terminated, and the data folder's with the last box", async () => {
    await backend.terminate(loud.instanceId);
    for (const hierarchy of HIERARCHIES)
      expect(existsSync(cgroupOf(hierarchy, loud.instanceId)), hierarchy).toBe(false);
    expect(existsSync(cgroupOf("pids", quiet.instanceId))).toBe(true);
    await backend.terminate(quiet.instanceId);
    for (const hierarchy of HIERARCHIES)
      expect(existsSync(join("/sys/fs/cgroup", hierarchy, cgroupParentFor(outer, dataDir)))).toBe(
        false,
      );
    expect(await readFile(`/sys/fs/cgroup/pids/${outer}/cgroup.procs`, "utf8")).toBe("");
  });
});
