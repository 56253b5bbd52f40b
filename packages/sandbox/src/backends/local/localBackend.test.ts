// The local backend against real boxd processes and real folders: boxes are created, isolated,
// outlive their backend object, and are suspended, resumed and terminated. Every box is
// terminated after each test, and the file ends by checking that no boxd process survived.
import { randomBytes } from "node:crypto";
import { access, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { BoxMetadata } from "../../spawner/backend.ts";
import { boxLayout, readBoxRecord, writeBoxRecord, type BoxRecord } from "./boxFolder.ts";
import { probeBubblewrap } from "./bubblewrap.ts";
import { LocalBackend } from "./localBackend.ts";
import type { LocalBackendOptions } from "./localSettings.ts";
import type { LocalBackendLogger } from "./logger.ts";
import { localExecutionProfile } from "../../spawner/executionProfile.ts";

const repoRoot = fileURLToPath(new URL("../../../../../", import.meta.url));
const secret = randomBytes(32).toString("hex");
const ci = process.env.CI === "true" || process.env.CI === "1";
// Under CI bubblewrap is required, so the isolation tests run (and fail if it is missing).
const bubblewrap = ci || (await probeBubblewrap("bwrap")).ok;

let dataDir = "";
/** Every box pid the tests saw: none may outlive the file. */
const seenPids = new Set<number>();

beforeAll(async () => {
  dataDir = await realpath(await mkdtemp(join(tmpdir(), "berth-local-")));
});

afterEach(async () => {
  const cleaner = new LocalBackend({ dataDir, secret, isolation: "none" });
  for (const box of await cleaner.inventory()) await cleaner.terminate(box.instanceId);
  expect(await cleaner.inventory()).toEqual([]);
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
  expect(seenPids.size).toBeGreaterThan(0);
  const survivors: number[] = [];
  for (const pid of seenPids) if (!(await exitedSoon(pid))) survivors.push(pid);
  expect(survivors).toEqual([]);
});

function backend(overrides: Partial<LocalBackendOptions> = {}): LocalBackend {
  return new LocalBackend({ dataDir, secret, isolation: "auto", ...overrides });
}

function metadata(name: string): BoxMetadata {
  return {
    workspaceId: `ws-${name}`,
    leaseId: `lease-${name}`,
    epoch: 1,
    allocationId: `alloc-${name}-${randomBytes(3).toString("hex")}`,
  };
}

function layoutOf(instanceId: string) {
  return boxLayout({ dataDir, instanceId });
}

async function recordOf(instanceId: string): Promise<BoxRecord> {
  const record = await readBoxRecord(layoutOf(instanceId));
  if (record === undefined) throw new Error(`no record for ${instanceId}`);
  for (const pid of [record.boxd?.pid ?? 0, ...(await boxdNodePids(instanceId))]) {
    if (pid > 0) seenPids.add(pid);
  }
  return record;
}

function runningPid(record: BoxRecord): number {
  if (record.boxd === null) throw new Error(`${record.instanceId} is not running`);
  return record.boxd.pid;
}

/** The host pids of the node processes serving this box (its boxd), found by their environment. */
async function boxdNodePids(instanceId: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const environ = await readFile(`/proc/${name}/environ`, "utf8");
      const argv0 = (await readFile(`/proc/${name}/cmdline`, "utf8")).split("\0")[0];
      if (
        argv0 === process.execPath &&
        environ.split("\0").includes(`BOXD_INSTANCE_ID=${instanceId}`)
      ) {
        found.push(Number(name));
      }
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether the pid is gone within a few seconds (a parent may take a moment to reap it). */
async function exitedSoon(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (!alive(pid)) return true;
    await delay(50);
  }
  return false;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe("LocalBackend", () => {
  it("creates a box, execs in it, writes to its workspace, and creates an allocation once", async () => {
    const meta = metadata("basic");
    // Two backend objects creating the same allocation at once: one box, one boxd.
    const [first, second] = await Promise.all([
      backend().create({ metadata: meta, profile: localExecutionProfile }),
      backend().create({ metadata: meta, profile: localExecutionProfile }),
    ]);
    expect(second.instanceId).toBe(first.instanceId);
    const { instanceId } = first;
    const local = backend();
    const box = await local.connect(instanceId);
    expect((await box.exec({ argv: ["true"] })).exitCode).toBe(0);
    await box.write({ path: "notes/hello.txt", content: "hi\n", createParents: true });
    const onDisk = join(layoutOf(instanceId).workspace, "notes", "hello.txt");
    expect(await readFile(onDisk, "utf8")).toBe("hi\n");

    const record = await recordOf(instanceId);
    const pid = runningPid(record);
    // Each create reports what the box runs with, as its record says.
    expect(first.confinement).toEqual({
      isolation: record.isolation,
      network: record.network,
      limits: record.limits,
    });
    expect(record.limits.processes).toBe(512);
    expect(await local.create({ metadata: meta, profile: localExecutionProfile })).toEqual(first);
    expect(runningPid(await recordOf(instanceId))).toBe(pid);
    const nodePids = await boxdNodePids(instanceId);
    expect(nodePids).toHaveLength(1);
    // boxd runs under the V8 flags its build made its code cache for.
    const argv = (await readFile(`/proc/${String(nodePids[0])}/cmdline`, "utf8")).split("\0");
    const flagsFile = join(repoRoot, "apps", "boxd", "node-flags.json");
    const flags = JSON.parse(await readFile(flagsFile, "utf8")) as string[];
    expect(flags.length).toBeGreaterThan(0);
    expect(argv.slice(1, 1 + flags.length)).toEqual(flags);
    // The token is derived, never stored.
    const folder = layoutOf(instanceId).folder;
    for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || entry.parentPath.startsWith(layoutOf(instanceId).workspace)) continue;
      expect(await readFile(join(entry.parentPath, entry.name), "utf8")).not.toContain(secret);
    }
  });

  it("refuses invalid metadata and ids", async () => {
    const local = backend();
    await expect(
      local.create({
        metadata: { ...metadata("bad"), allocationId: "" },
        profile: localExecutionProfile,
      }),
    ).rejects.toMatchObject({
      name: "BackendError",
      code: "invalid",
    });
    await expect(
      local.create({ metadata: { ...metadata("bad"), epoch: -1 }, profile: localExecutionProfile }),
    ).rejects.toMatchObject({
      code: "invalid",
    });
    await expect(local.resume("../../etc")).rejects.toMatchObject({ code: "invalid" });
    await expect(local.terminate("box-a/../../x")).rejects.toMatchObject({ code: "invalid" });
  });

  it.skipIf(!bubblewrap)(
    "isolates bubblewrap boxes from each other and from the host",
    async () => {
      const local = backend({ isolation: "bubblewrap" });
      const [a, b] = await Promise.all([
        local.create({ metadata: metadata("iso-a"), profile: localExecutionProfile }),
        local.create({ metadata: metadata("iso-b"), profile: localExecutionProfile }),
      ]);
      const boxA = await local.connect(a.instanceId);
      const boxB = await local.connect(b.instanceId);
      await boxB.write({ path: "secret.txt", content: "b's secret" });
      const sh = (script: string) => boxA.exec({ argv: ["sh", "-c", script] });
      const bLayout = layoutOf(b.instanceId);
      expect((await recordOf(a.instanceId)).isolation).toBe("bubblewrap");

      // A's root holds none of the host's folders: not B's, not the data folder, not even A's
      // own record and log. Its workspace is /workspace.
      for (const target of [
        bLayout.folder,
        bLayout.workspace,
        dataDir,
        layoutOf(a.instanceId).folder,
      ]) {
        expect((await boxA.exec({ argv: ["ls", target] })).exitCode, target).not.toBe(0);
      }
      expect(
        (await boxA.exec({ argv: ["cat", join(bLayout.workspace, "secret.txt")] })).exitCode,
      ).not.toBe(0);
      await boxA.write({ path: "mine.txt", content: "a" });
      expect((await boxA.exec({ argv: ["ls", "/workspace"] })).stdout.trim()).toBe("mine.txt");

      // Processes: /proc holds only A's own (pid 1 is the sandbox's init); none is B's.
      const pids = (await sh("for d in /proc/[0-9]*; do echo ${d#/proc/}; done")).stdout
        .trim()
        .split("\n")
        .map(Number);
      expect(pids).toContain(1);
      expect(pids.length).toBeLessThan(10);
      const bHostPids = [
        runningPid(await recordOf(b.instanceId)),
        ...(await boxdNodePids(b.instanceId)),
      ];
      for (const pid of bHostPids) expect(pids).not.toContain(pid);
      const environs = await sh("cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'");
      expect(environs.stdout).not.toContain(b.instanceId);
      const ps = await boxA.exec({ argv: ["ps", "-e", "-o", "pid="] });
      if (ps.exitCode === 0)
        expect(ps.stdout.trim().split(/\s+/).map(Number)).not.toContain(bHostPids[0]);

      // Writes outside the workspace fail (the root is read-only) and leave nothing on the host.
      const nonce = randomBytes(4).toString("hex");
      const outside = [
        join(repoRoot, `escape-${nonce}`),
        `/etc/berth-escape-${nonce}`,
        `/berth-escape-${nonce}`,
        join(bLayout.workspace, `planted-${nonce}`),
        join(dataDir, `planted-${nonce}`),
      ];
      for (const target of outside) {
        expect(
          (await boxA.exec({ argv: ["sh", "-c", `echo x >> "$1"`, "sh", target] })).exitCode,
        ).not.toBe(0);
      }
      for (const target of outside) expect(await exists(target)).toBe(false);
      expect((await recordOf(a.instanceId)).instanceId).toBe(a.instanceId);

      // Root in the box holds no capabilities (it could otherwise remount its read-only root),
      // and the host's /run (Docker, PostgreSQL and D-Bus sockets) is not there.
      expect((await sh("grep CapEff /proc/self/status")).stdout).toMatch(/CapEff:\s+0+\s*$/);
      expect((await sh("ls -A /run")).stdout.trim()).toBe("");
      expect((await sh("mount -o remount,rw /")).exitCode).not.toBe(0);

      // The operator's home (SSH keys, cloud credentials) is not there: the box has its own.
      const home = homedir();
      if (home !== "/home/box")
        expect((await boxA.exec({ argv: ["ls", "-A", home] })).stdout.trim()).toBe("");
      expect((await sh("echo $HOME")).stdout.trim()).toBe("/home/box");

      // B is unaffected.
      expect((await boxB.read({ path: "secret.txt" })).content).toBe("b's secret");
      expect(await readdir(bLayout.workspace)).toEqual(["secret.txt"]);
    },
  );

  it("is picked up by a new backend object: reuses a running boxd, restarts a dead one", async () => {
    const before = backend();
    const { instanceId } = await before.create({
      metadata: metadata("restart"),
      profile: localExecutionProfile,
    });
    await (await before.connect(instanceId)).write({ path: "kept.txt", content: "kept" });
    const original = await recordOf(instanceId);

    // A control-plane restart: a new object sharing nothing but the data folder.
    const after = backend();
    await after.resume(instanceId);
    const reused = await recordOf(instanceId);
    expect(reused.boxd).toEqual(original.boxd);

    // boxd dies: its box is no longer running, and resume restarts it on the same folder.
    const [boxdPid] = await boxdNodePids(instanceId);
    if (boxdPid === undefined) throw new Error("no boxd process found");
    process.kill(boxdPid, "SIGKILL");
    expect(await exitedSoon(boxdPid)).toBe(true);
    expect(await exitedSoon(runningPid(original))).toBe(true);
    expect((await after.inventory()).find((box) => box.instanceId === instanceId)?.state).toBe(
      "suspended",
    );
    await expect(after.connect(instanceId)).rejects.toMatchObject({ code: "unavailable" });

    await after.resume(instanceId);
    const restarted = await recordOf(instanceId);
    expect(runningPid(restarted)).not.toBe(runningPid(original));
    const box = await after.connect(instanceId);
    expect((await box.read({ path: "kept.txt" })).content).toBe("kept");
    expect(await boxdNodePids(instanceId)).toHaveLength(1);

    // A control plane that died between starting boxd and recording it: the unrecorded boxd is
    // killed before another starts, so one workspace never has two.
    const [unrecorded] = await boxdNodePids(instanceId);
    if (unrecorded === undefined) throw new Error("no boxd process found");
    await writeBoxRecord(layoutOf(instanceId), { ...restarted, boxd: null });
    await backend().resume(instanceId);
    expect(await exitedSoon(unrecorded)).toBe(true);
    expect(await exitedSoon(runningPid(restarted))).toBe(true);
    expect(await boxdNodePids(instanceId)).toHaveLength(1);
    expect(runningPid(await recordOf(instanceId))).not.toBe(runningPid(restarted));
  });

  it("suspends, resumes and terminates boxes; caps running boxes; unknown ids", async () => {
    const local = backend({ maxBoxes: 1 });
    const { instanceId } = await local.create({
      metadata: metadata("life"),
      profile: localExecutionProfile,
    });
    await (await local.connect(instanceId)).write({ path: "state.txt", content: "saved" });
    const layout = layoutOf(instanceId);

    // One box runs: a second is refused before anything is made.
    const over = metadata("over");
    await expect(
      local.create({ metadata: over, profile: localExecutionProfile }),
    ).rejects.toMatchObject({ code: "capacity" });
    expect((await local.inventory()).map((box) => box.instanceId)).toEqual([instanceId]);

    const running = runningPid(await recordOf(instanceId));
    await local.suspend(instanceId);
    expect(await exitedSoon(running)).toBe(true);
    expect(await exists(join(layout.workspace, "state.txt"))).toBe(true);
    expect(await local.inventory()).toMatchObject([{ instanceId, state: "suspended" }]);
    await expect(local.connect(instanceId)).rejects.toMatchObject({ code: "unavailable" });
    await local.suspend(instanceId); // already suspended: nothing to do

    // A lock left by a control plane that died mid-operation is taken over.
    const lockFile = join(dataDir, "locks", `${instanceId}.lock`);
    const dead = { pid: 4_194_304, startTicks: "1", bootId: null, nonce: "crashed" };
    await writeFile(lockFile, JSON.stringify(dead));
    await local.resume(instanceId);
    expect(await exists(lockFile)).toBe(false);
    expect(await local.inventory()).toMatchObject([{ instanceId, state: "running" }]);
    const box = await local.connect(instanceId);
    expect((await box.read({ path: "state.txt" })).content).toBe("saved");

    const resumedPid = runningPid(await recordOf(instanceId));
    await local.terminate(instanceId);
    expect(await exitedSoon(resumedPid)).toBe(true);
    expect(await exists(layout.folder)).toBe(false);
    expect(await local.inventory()).toEqual([]);
    await local.terminate(instanceId);
    await local.terminate("box-never-created");

    for (const call of [
      () => local.resume("box-never-created"),
      () => local.suspend("box-never-created"),
      () => local.connect("box-never-created"),
    ]) {
      await expect(call()).rejects.toMatchObject({
        code: "not_found",
        instanceId: "box-never-created",
      });
    }
  });

  it("lists metadata, creation time and isolation; auto falls back to none once, never under CI", async () => {
    const warnings: string[] = [];
    const logger: LocalBackendLogger = {
      info: () => undefined,
      warn: (_details, message) => warnings.push(message),
      error: () => undefined,
    };
    const missing = "/nonexistent/bwrap";
    const startedAt = Date.now();
    const isolatedMeta = metadata("inv-isolated");
    const plainMeta = metadata("inv-plain");
    const [isolated, plain] = await Promise.all([
      backend().create({ metadata: isolatedMeta, profile: localExecutionProfile }),
      backend({ bwrapPath: missing, ci: false, allowUnisolated: true, logger }).create({
        metadata: plainMeta,
        profile: localExecutionProfile,
      }),
    ]);
    // A second fallback in this process is not logged again (it fails on capacity after resolving).
    await expect(
      backend({ bwrapPath: missing, ci: false, allowUnisolated: true, logger, maxBoxes: 1 }).create(
        {
          metadata: metadata("x"),
          profile: localExecutionProfile,
        },
      ),
    ).rejects.toMatchObject({ code: "capacity" });
    expect(warnings).toEqual([
      "bubblewrap does not work here and BERTH_ALLOW_UNISOLATED=1: local boxes run without isolation",
    ]);

    const inventory = await backend().inventory();
    expect(inventory).toHaveLength(2);
    const byId = new Map(inventory.map((box) => [box.instanceId, box]));
    expect(byId.get(isolated.instanceId)).toMatchObject({
      metadata: isolatedMeta,
      isolation: bubblewrap ? "bubblewrap" : "none",
      state: "running",
    });
    expect(byId.get(plain.instanceId)).toMatchObject({
      metadata: plainMeta,
      isolation: "none",
      state: "running",
    });
    for (const box of inventory) {
      expect(box.createdAt.getTime()).toBeGreaterThanOrEqual(startedAt - 1_000);
      expect(box.createdAt.getTime()).toBeLessThanOrEqual(Date.now());
      await recordOf(box.instanceId);
    }

    // Without BERTH_ALLOW_UNISOLATED, under CI (even with it) or when asked for, a missing
    // bubblewrap is an error, and nothing is made.
    for (const options of [
      { isolation: "auto", ci: false, allowUnisolated: false },
      { isolation: "auto", ci: true, allowUnisolated: true },
      { isolation: "bubblewrap", ci: false },
    ] as const) {
      await expect(
        backend({ ...options, bwrapPath: missing }).create({
          metadata: metadata("ci"),
          profile: localExecutionProfile,
        }),
      ).rejects.toMatchObject({
        code: "unavailable",
        message: expect.stringContaining("bubblewrap is required") as unknown,
      });
    }
    expect(await backend().inventory()).toHaveLength(2);
  });

  it("refuses a data folder whose socket path would not fit in 107 bytes, naming it", async () => {
    const longDir = join(dataDir, "d".repeat(100));
    const local = new LocalBackend({ dataDir: longDir, secret, isolation: "auto" });
    const refused = local.create({ metadata: metadata("long"), profile: localExecutionProfile });
    await expect(refused).rejects.toMatchObject({ code: "invalid" });
    await expect(refused).rejects.toThrow(/over 107 bytes .*shorter BERTH_DATA_DIR/);
    await rm(longDir, { recursive: true, force: true });
  });

  it("reports a boxd that cannot start as unavailable, with its last log lines", async () => {
    const entry = join(dataDir, "crashingBoxd.mjs");
    await writeFile(entry, 'console.error("boxd exploded: no config"); process.exit(3);\n');
    const local = backend({ isolation: "none", boxdEntry: entry });
    const failure = local.create({ metadata: metadata("crash"), profile: localExecutionProfile });
    await expect(failure).rejects.toMatchObject({ code: "unavailable" });
    await expect(failure).rejects.toThrow(
      /exited with code 3 before listening[\s\S]*boxd exploded: no config/,
    );
    // Its folder stays (a retry of the same allocation tries again); nothing runs.
    expect(await local.inventory()).toMatchObject([{ state: "suspended" }]);
  });
});
