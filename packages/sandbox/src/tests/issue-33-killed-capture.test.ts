// Issue 33, item 6: a capture killed mid-way left its partial blob in the store's incoming folder
// forever and its progress frozen at "capturing". Captures run in child processes here, with the
// real archiver, store and recorder, and are killed with SIGKILL.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { readdir, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AbandonedCaptureSystem } from "../archives/abandonedCaptureSystem.ts";
import { ArchiveRestorer } from "../archives/archiveRestorer.ts";
import { FilesystemArchiveStore } from "../archives/filesystemArchiveStore.ts";
import { progressRecorder } from "../archives/progressRecorder.ts";
import { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import type { Backend } from "../spawner/backend.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import {
  archivedWarmLease,
  seedSession,
  settledWrite,
  useLeaseWorld,
  type LeaseWorld,
  type SeededSession,
} from "./leaseFixture.ts";
import { TEST_BOX_SECRET, useLocalBackend } from "./spawnerFixture.ts";

const world = useLeaseWorld();
const local = useLocalBackend();
const archiveDir = () => join(local.dataDir, "archives");
const incoming = () => join(archiveDir(), ".incoming");

/** A warm local box whose workspace holds 2 MiB, with one settled write so a capture has work. */
async function warmBox(w: LeaseWorld) {
  const session = await seedSession(w.db);
  const holderId = "direct:capture";
  const acquired = await w.leases.acquire({ ...session, kind: "direct", holderId });
  if (acquired.role !== "spawner") throw new Error(acquired.role);
  const box = await new SpawnerSystem({
    resources: { db: w.db, clock: w.clock, config: w.config },
    backends: BackendRegistry.of(local.backend),
  }).establish(acquired.lease);
  const workspace = join(local.dataDir, "boxes", box.instanceId, "workspace");
  await writeFile(join(workspace, "big.bin"), randomBytes(2 * 1024 * 1024));
  await settledWrite(w, { session, lease: box.lease, holder: { kind: "direct", id: holderId } });
  return { session, lease: box.lease };
}

/** A capture of `session`'s box in a child process, stalled mid-write and alive until killed. */
async function stalledCapture(w: LeaseWorld, session: SeededSession): Promise<ChildProcess> {
  const argument = JSON.stringify({
    url: w.url,
    dataDir: local.dataDir,
    archiveDir: archiveDir(),
    secret: TEST_BOX_SECRET,
    now: (await w.clock.now()).toISOString(),
    group: session,
    stallAfterBytes: 512 * 1024,
  });
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(import.meta.dirname, "captureProbe.ts"), argument],
    { cwd: import.meta.dirname, stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const exited = once(child, "exit");
  await Promise.race([
    (async () => {
      while (!out.includes("stalled")) await new Promise((resolve) => setTimeout(resolve, 20));
    })(),
    exited.then(() => {
      throw new Error("the capture probe exited before it stalled");
    }),
  ]);
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}

async function progressOf(w: LeaseWorld, leaseId: string) {
  return w.db.archiveProgress.findUnique({ where: { leaseId } });
}

/** The incoming folder's files, with the part files' sizes. */
async function pending(): Promise<{ parts: Map<string, number>; locks: string[] }> {
  const names = await readdir(incoming()).catch(() => []);
  const parts = new Map<string, number>();
  for (const name of names.filter((n) => n.endsWith(".part"))) {
    parts.set(name.slice(0, -".part".length), (await stat(join(incoming(), name))).size);
  }
  const locks = names.filter((n) => n.endsWith(".lock")).map((n) => n.slice(0, -".lock".length));
  return { parts, locks };
}

async function age(ids: Iterable<string>, days: number): Promise<void> {
  const then = new Date(Date.now() - days * 24 * 3_600_000);
  for (const id of ids) {
    for (const name of [`${id}.part`, `${id}.lock`])
      await utimes(join(incoming(), name), then, then);
  }
}

describe("a capture killed mid-way (issue 33)", () => {
  it("leaves a locked pending blob and 'capturing'; the sweep removes the blob and fails exactly that progress", async () => {
    const w = world.current;
    const sweep = new AbandonedCaptureSystem({
      db: w.db,
      store: new FilesystemArchiveStore({ root: archiveDir() }),
    });
    const killed = await warmBox(w);
    const slow = await warmBox(w);
    const doomed = await stalledCapture(w, killed.session);
    const alive = await stalledCapture(w, slow.session);

    await kill(doomed);
    const left = await pending();
    expect(left.parts.size).toBe(2);
    expect([...left.parts.values()].every((size) => size > 0)).toBe(true);
    expect(left.locks.sort()).toEqual([...left.parts.keys()].sort());
    const frozen = await progressOf(w, killed.lease.id);
    expect(frozen).toMatchObject({ operation: "capture", phase: "capturing" });
    expect(frozen?.bytesDone).toBeGreaterThan(0n);
    // Age is no evidence either way: both blobs look a day old.
    await age(left.parts.keys(), 1);

    const first = await sweep.sweepOnce();

    expect(first).toEqual({
      removed: 1,
      deferred: 0,
      transfers: [{ leaseId: killed.lease.id, transferId: frozen?.transferId, outcome: "failed" }],
    });
    expect(await progressOf(w, killed.lease.id)).toMatchObject({
      phase: "failed",
      transferId: frozen?.transferId,
      bytesDone: frozen?.bytesDone,
      bytesTotal: frozen?.bytesTotal,
    });
    // The live capture, however slow and old-looking, keeps its blob and its progress.
    const survivor = await pending();
    expect(survivor.parts.size).toBe(1);
    expect(survivor.locks).toEqual([...survivor.parts.keys()]);
    expect(await progressOf(w, slow.lease.id)).toMatchObject({ phase: "capturing" });
    expect(await sweep.sweepOnce()).toEqual({ removed: 0, deferred: 0, transfers: [] });

    // Killed in turn, after a later transfer of its lease took over the progress row: its blob
    // goes, and the newer transfer's progress is left as it is.
    const slowCapture = await progressOf(w, slow.lease.id);
    await kill(alive);
    const later = progressRecorder(w.db);
    const restore = crypto.randomUUID();
    later({
      operation: "restore",
      leaseId: slow.lease.id,
      transferId: restore,
      phase: "checking",
      bytesDone: 10,
      bytesTotal: 100,
    });
    await later.settled();

    expect(await sweep.sweepOnce()).toEqual({
      removed: 1,
      deferred: 0,
      transfers: [
        { leaseId: slow.lease.id, transferId: slowCapture?.transferId, outcome: "superseded" },
      ],
    });
    expect(await progressOf(w, slow.lease.id)).toMatchObject({
      operation: "restore",
      phase: "checking",
      transferId: restore,
    });
    expect(await pending()).toEqual({ parts: new Map(), locks: [] });
  });

  it("a capture that fails in its process ends its progress in 'failed' and leaves no pending blob", async () => {
    const w = world.current;
    const { session, lease } = await warmBox(w);
    const recorder = progressRecorder(w.db);
    // The Backend port over the real one: the box's stream breaks after its first figure.
    const real = local.backend;
    const breaking: Backend = {
      kind: "local",
      create: (creation) => real.create(creation),
      resume: (instanceId) => real.resume(instanceId),
      terminate: (instanceId) => real.terminate(instanceId),
      suspend: (instanceId) => real.suspend(instanceId),
      inventory: () => real.inventory(),
      ready: (instanceId, options) => real.ready(instanceId, options),
      connect: async (instanceId) => {
        const client = await real.connect(instanceId);
        return {
          ...client,
          capture: (capture) => {
            capture.onProgress?.({ bytesDone: 4096, bytesTotal: 8192 });
            return Promise.reject(new Error("connection reset by the box"));
          },
        };
      },
    };
    const archiver = new WorkspaceArchiver({
      resources: { db: w.db, clock: w.clock, config: w.config },
      backends: BackendRegistry.of(breaking),
      store: new FilesystemArchiveStore({ root: archiveDir() }),
      onProgress: recorder,
    });

    const current = await w.leases.readByGroup(session);
    const result = await archiver.capture(current ?? lease, { actor: "test" });
    await recorder.settled();

    expect(result).toMatchObject({ kind: "unavailable", reason: /connection reset/ });
    expect(await progressOf(w, lease.id)).toMatchObject({
      operation: "capture",
      phase: "failed",
      bytesDone: 4096n,
      bytesTotal: 8192n,
    });
    expect(await pending()).toEqual({ parts: new Map(), locks: [] });
  });

  it("a restore whose blob is missing ends its progress in 'failed'", async () => {
    const w = world.current;
    const session = await seedSession(w.db);
    // Published through the in-memory drain port: a row whose blob this store never had.
    const lease = await archivedWarmLease(w, session, `box-${crypto.randomUUID()}`);
    const recorder = progressRecorder(w.db);
    const restorer = new ArchiveRestorer({
      db: w.db,
      store: new FilesystemArchiveStore({ root: archiveDir() }),
      onProgress: recorder,
    });

    // As the spawner of its next box would see it: the archive selected for the restore.
    const restoring = { ...lease, selectedRevision: lease.archiveRevision };
    await expect(restorer.check(restoring)).rejects.toMatchObject({ code: "archive_missing" });
    await recorder.settled();

    expect(await progressOf(w, lease.id)).toMatchObject({
      operation: "restore",
      phase: "failed",
      bytesDone: 0n,
      bytesTotal: 1024n,
    });
  });
});
