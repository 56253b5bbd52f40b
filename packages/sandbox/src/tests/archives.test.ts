import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RecoveryActions } from "../admin/recoveryActions.ts";
import { ArchiveRestorer } from "../archives/archiveRestorer.ts";
import { findArchive, listArchives } from "../archives/archiveRows.ts";
import { CheckpointSystem } from "../archives/checkpointSystem.ts";
import { FilesystemArchiveStore } from "../archives/filesystemArchiveStore.ts";
import type { ArchiveProgress } from "../archives/progress.ts";
import { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import type { LocalBackend } from "../backends/local/localBackend.ts";
import { backendDrainPort } from "../reaper/backendDrainPort.ts";
import { ReaperSystem } from "../reaper/reaperSystem.ts";
import type { Backend } from "../spawner/backend.ts";
import { SpawnError } from "../spawner/spawnError.ts";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import {
  acquireSpawner,
  admitWrite,
  currentLease,
  download,
  establishBox,
  loseBox,
  writeInBox,
  type WarmBox,
} from "./boxFixture.ts";
import { seedSession, useLeaseWorld, type LeaseWorld, type SeededSession } from "./leaseFixture.ts";
import { boxProcessesGone, RacepointBackend, useLocalBackend } from "./spawnerFixture.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";

const world = useLeaseWorld();
const local = useLocalBackend();
let storeRoot = "";
let backend: LocalBackend;
let store: FilesystemArchiveStore;

beforeAll(() => {
  backend = local.backend;
  storeRoot = join(local.dataDir, "archives");
  store = new FilesystemArchiveStore({ root: storeRoot });
});

const resourcesOf = (w: LeaseWorld) => ({ db: w.db, clock: w.clock, config: w.config });

function spawnerOf(
  w: LeaseWorld,
  options: { over?: Backend; onProgress?: (event: ArchiveProgress) => void } = {},
) {
  return new SpawnerSystem({
    resources: resourcesOf(w),
    backends: BackendRegistry.of(options.over ?? backend),
    restorer: new ArchiveRestorer({ db: w.db, store, onProgress: options.onProgress }),
    readinessTimeoutMs: 5_000,
  });
}

function archiverOf(
  w: LeaseWorld,
  options: {
    over?: Backend;
    keepRevisions?: number;
    onProgress?: (event: ArchiveProgress) => void;
  } = {},
) {
  return new WorkspaceArchiver({
    resources: resourcesOf(w),
    backends: BackendRegistry.of(options.over ?? backend),
    store,
    keepRevisions: options.keepRevisions,
    onProgress: options.onProgress,
  });
}

/** A box established through this file's spawner over the filesystem store (or `spawner`). */
function establish(w: LeaseWorld, s: SeededSession, spawner = spawnerOf(w)): Promise<WarmBox> {
  return establishBox(w, s, { spawner, backend });
}

/** The keys of a lease's archive rows, each checked to be stored. */
async function blobsOf(leaseId: string): Promise<string[]> {
  const keys = [
    ...new Set((await listArchives(world.current.db, leaseId)).map((a) => a.storageKey)),
  ];
  for (const key of keys) expect(await store.exists(key), key).toBe(true);
  return keys.sort();
}

/** Blobs in the store no archive row refers to: what a capture or a retention left behind. */
async function strayBlobs(): Promise<string[]> {
  const rows = await world.current.db.workspaceArchive.findMany({ select: { storageKey: true } });
  const referenced = new Set(rows.map((row) => row.storageKey));
  return (await storedBlobs()).filter((key) => !referenced.has(key) && !blobsBefore.has(key));
}

async function storedBlobs(): Promise<string[]> {
  const keys: string[] = [];
  for await (const path of walkFiles(join(storeRoot, "blobs")))
    keys.push(relative(storeRoot, path));
  return keys;
}

/** The blobs earlier tests left (one deletes a row behind Berth's back): not this test's strays. */
let blobsBefore = new Set<string>();
beforeEach(async () => {
  blobsBefore = new Set(await storedBlobs());
});

async function* walkFiles(folder: string): AsyncGenerator<string> {
  for (const entry of await readdir(folder, { withFileTypes: true }).catch(() => [])) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* walkFiles(path);
    else yield path;
  }
}

function expectSteadyProgress(events: readonly ArchiveProgress[], phase: ArchiveProgress["phase"]) {
  const mine = events.filter((event) => event.phase === phase);
  expect(mine.length).toBeGreaterThan(0);
  const done = mine.map((event) => event.bytesDone);
  expect(done).toEqual([...done].sort((a, b) => a - b));
  const last = mine.at(-1);
  expect(last?.bytesDone).toBe(last?.bytesTotal);
}

const VARIED_TREE = `
mkdir -p src/nested empty/deeper/deepest
printf 'hello\\n' > src/a.txt
: > empty.txt
head -c 70000 /dev/urandom > bin.dat
chmod 0751 bin.dat
chmod 0600 src/a.txt
printf 'x' > 'space name.txt'
ln -s src/a.txt link
ln -s ../missing src/dangling
chmod 0700 empty/deeper
`;

describe("capture and exact-revision restore (real boxes, real files)", () => {
  it("a box killed after a capture comes back byte-identical: text, binary, empty, modes, symlinks, empty folders", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const box = await establish(w, s);
    await writeInBox(w, { session: s, box }, VARIED_TREE);
    expect(await currentLease(w, s)).toMatchObject({
      workspaceGeneration: 1,
      archiveComplete: false,
    });
    const before = await box.client.manifest();
    const binary = await download(box.client, "bin.dat");

    const captureEvents: ArchiveProgress[] = [];
    const captured = await archiverOf(w, { onProgress: (e) => captureEvents.push(e) }).capture(
      await currentLease(w, s),
      { actor: "test" },
    );
    expect(captured).toMatchObject({ kind: "published", revision: before.revision, generation: 1 });
    expect(await currentLease(w, s)).toMatchObject({ archiveGeneration: 1, archiveComplete: true });
    expectSteadyProgress(captureEvents, "capturing");
    const row = await findArchive(w.db, { leaseId: box.lease.id, revision: before.revision });
    expect(row).toMatchObject({ status: "available", generation: 1, fileCount: 4 });
    expect(await blobsOf(box.lease.id)).toHaveLength(1);
    expect(await strayBlobs()).toEqual([]);

    await loseBox(w, s, box);
    const restoreEvents: ArchiveProgress[] = [];
    const spawner = spawnerOf(w, { onProgress: (e) => restoreEvents.push(e) });
    const restored = await establish(w, s, spawner);

    expect(restored.lease).toMatchObject({
      liveness: "warm",
      restoreStatus: "ready",
      workspaceStatus: "ready",
      selectedRevision: before.revision,
    });
    expect(await restored.client.manifest()).toEqual(before);
    expect((await download(restored.client, "bin.dat")).equals(binary)).toBe(true);
    const link = await restored.client.exec({ argv: ["readlink", "link"] });
    expect(link.stdout).toBe("src/a.txt\n");
    expectSteadyProgress(restoreEvents, "checking");
    expectSteadyProgress(restoreEvents, "hydrating");
    expect(restoreEvents.at(-1)?.bytesTotal).toBe(row?.sizeBytes);
  });

  it("a flipped byte in the stored blob fails the check before any box exists; blocked until an admin restores the previous revision", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const box = await establish(w, s);
    const archiver = archiverOf(w, { keepRevisions: 1 });
    await writeInBox(w, { session: s, box }, "printf one > version.txt");
    const first = await archiver.capture(await currentLease(w, s), { actor: "test" });
    await writeInBox(w, { session: s, box }, "printf two > version.txt");
    const second = await archiver.capture(await currentLease(w, s), { actor: "test" });
    if (first.kind !== "published" || second.kind !== "published") throw new Error("no capture");
    // Retention keeps one revision: the first goes once the second is current.
    expect((await listArchives(w.db, box.lease.id)).map((a) => a.revision)).toEqual([
      second.revision,
    ]);
    // Capture the first again (the workspace reverts), then the second: both rows exist.
    await writeInBox(w, { session: s, box }, "printf one > version.txt");
    await archiverOf(w).capture(await currentLease(w, s), { actor: "test" });
    await writeInBox(w, { session: s, box }, "printf two > version.txt");
    await archiverOf(w).capture(await currentLease(w, s), { actor: "test" });

    const row = await findArchive(w.db, { leaseId: box.lease.id, revision: second.revision });
    if (row === null) throw new Error("no row");
    const path = join(storeRoot, row.storageKey);
    const bytes = await readFile(path);
    bytes[Math.floor(bytes.length / 2)] = (bytes[Math.floor(bytes.length / 2)] ?? 0) ^ 0x01;
    await writeFile(path, bytes);

    await loseBox(w, s, box);
    const { lease } = await acquireSpawner(w, s);
    const boxesBefore = (await backend.inventory()).length;
    const failure = await spawnerOf(w)
      .establish(lease)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SpawnError);
    expect(failure).toMatchObject({ code: "restore_failed", failureCode: "archive_corrupt" });
    expect((await backend.inventory()).length).toBe(boxesBefore);
    expect(await currentLease(w, s)).toMatchObject({
      liveness: "cold",
      restoreStatus: "unrecoverable",
      failureCode: "archive_corrupt",
      retryable: false,
    });
    expect(await findArchive(w.db, { leaseId: lease.id, revision: second.revision })).toMatchObject(
      { status: "invalid" },
    );
    const blocked = await w.leases.acquire({ ...s, kind: "direct", holderId: "direct:late" });
    expect(blocked).toMatchObject({ role: "blocked", reason: "restore_unrecoverable" });

    const admin = new RecoveryActions({
      resources: resourcesOf(w),
      drainPort: backendDrainPort({ backends: BackendRegistry.of(backend), archiver }),
    });
    const restoredRevision = await admin.restoreRevision({
      lease: await currentLease(w, s),
      revision: first.revision,
      actor: { kind: "user", id: "admin-1" },
    });
    expect(restoredRevision).toMatchObject({ outcome: "restored" });
    const recovered = await establish(w, s);
    expect(recovered.lease).toMatchObject({ liveness: "warm", selectedRevision: first.revision });
    expect((await download(recovered.client, "version.txt")).toString()).toBe("one");

    // Capturing the corrupt revision again replaces its invalid row and deletes the bad blob.
    await writeInBox(w, { session: s, box: recovered }, "printf two > version.txt");
    expect(await archiverOf(w).capture(await currentLease(w, s), { actor: "test" })).toMatchObject({
      kind: "published",
      revision: second.revision,
    });
    const replaced = await findArchive(w.db, { leaseId: box.lease.id, revision: second.revision });
    expect(replaced).toMatchObject({ status: "available" });
    // Good bytes under its key again (a blob found wrong is never kept for the same content),
    // and the bad blob is gone.
    expect(await store.digest(replaced?.storageKey ?? "")).toEqual({
      sizeBytes: replaced?.sizeBytes,
      sha256: replaced?.sha256,
    });
    expect(await strayBlobs()).toEqual([]);

    // Retention of one still keeps the selected revision beside the current one.
    await writeInBox(w, { session: s, box: recovered }, "printf three > version.txt");
    const third = await archiver.capture(await currentLease(w, s), { actor: "test" });
    expect(third.kind).toBe("published");
    const kept = (await listArchives(w.db, box.lease.id)).map((a) => a.revision).sort();
    expect(kept).toEqual([first.revision, third.kind === "published" ? third.revision : ""].sort());
  });

  it.each([
    { code: "archive_missing", how: "the blob is deleted from the store" },
    { code: "archive_metadata_invalid", how: "the archive row is gone" },
  ] as const)(
    "$code ($how): refused before any box exists, not retried: blocked",
    async ({ code }) => {
      const w = world.current;
      const s = await seedSession(w.db);
      const box = await establish(w, s);
      await writeInBox(w, { session: s, box }, "printf data > file.txt");
      const captured = await archiverOf(w).capture(await currentLease(w, s), { actor: "test" });
      if (captured.kind !== "published") throw new Error(captured.kind);
      const row = await findArchive(w.db, { leaseId: box.lease.id, revision: captured.revision });
      if (row === null) throw new Error("no row");
      if (code === "archive_missing") await store.remove(row.storageKey);
      else await w.db.workspaceArchive.delete({ where: { id: row.id } });
      await loseBox(w, s, box);

      const { lease } = await acquireSpawner(w, s);
      const boxesBefore = (await backend.inventory()).length;
      const failure = await spawnerOf(w)
        .establish(lease)
        .catch((error: unknown) => error);

      expect(failure).toMatchObject({ code: "restore_failed", failureCode: code });
      expect((await backend.inventory()).length).toBe(boxesBefore);
      expect(await currentLease(w, s)).toMatchObject({
        liveness: "cold",
        restoreStatus: "unrecoverable",
        failureCode: code,
      });
      expect(await w.leases.acquire({ ...s, kind: "viewer", holderId: "late" })).toMatchObject({
        role: "blocked",
      });
    },
  );

  it("a workspace tampered with during hydrate fails verification: box terminated, nothing warm, unrecoverable", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const box = await establish(w, s);
    await writeInBox(w, { session: s, box }, "printf data > file.txt");
    await archiverOf(w).capture(await currentLease(w, s), { actor: "test" });
    await loseBox(w, s, box);

    let created = "";
    const tampering = new RacepointBackend(backend, {
      afterCreate: (instanceId) => {
        created = instanceId;
        return Promise.resolve();
      },
      afterHydrate: async (client) => {
        await client.write({ path: "file.txt", content: "tampered" });
      },
    });
    const { lease } = await acquireSpawner(w, s);
    const failure = await spawnerOf(w, { over: tampering })
      .establish(lease)
      .catch((error: unknown) => error);

    expect(failure).toMatchObject({
      code: "restore_failed",
      failureCode: "workspace_fingerprint_mismatch",
    });
    expect(await boxProcessesGone(created)).toBe(true);
    expect(await currentLease(w, s)).toMatchObject({
      liveness: "cold",
      restoreStatus: "unrecoverable",
      failureCode: "workspace_fingerprint_mismatch",
    });
    const warmCommits = await w.db.leaseEvent.count({
      where: { leaseId: lease.id, transition: "commit_warm", epochBefore: lease.epoch },
    });
    expect(warmCommits).toBe(0);
  });

  it("a write admitted during a capture discards it and captures again: the archive always matches its generation", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const box = await establish(w, s);
    await writeInBox(w, { session: s, box }, "printf early > early.txt");
    let lateWrites = 0;
    const racing = new RacepointBackend(backend, {
      afterCapture: async () => {
        if (lateWrites > 0) return;
        lateWrites += 1;
        await writeInBox(w, { session: s, box }, "printf late > late.txt");
        expect(await currentLease(w, s)).toMatchObject({
          workspaceGeneration: 2,
          archiveComplete: false,
        });
      },
    });

    const captured = await archiverOf(w, { over: racing }).capture(await currentLease(w, s), {
      actor: "test",
    });

    const after = await box.client.manifest();
    expect(captured).toMatchObject({ kind: "published", generation: 2, revision: after.revision });
    expect(await currentLease(w, s)).toMatchObject({
      archiveGeneration: 2,
      archiveRevision: after.revision,
      archiveComplete: true,
    });
    // The stale first capture stored nothing: one row, one blob.
    expect(await listArchives(w.db, box.lease.id)).toHaveLength(1);
    expect(await blobsOf(box.lease.id)).toHaveLength(1);
    expect(await strayBlobs()).toEqual([]);
  });

  it("a write admitted before a capture starts and landing during it keeps the capture from publishing without it", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const box = await establish(w, s);
    await writeInBox(w, { session: s, box }, "printf early > early.txt");
    // A write admitted at generation 2 that has not reached the box yet (its call is running).
    const admitted = await admitWrite(w, { session: s, box }, "fs.write");
    const lease = await currentLease(w, s);
    // It lands, and settles, only after the box's files were read (if they are read at all).
    const racing = new RacepointBackend(backend, {
      afterCapture: async (client) => {
        await client.write({ path: "late.txt", content: "late", expectedVersion: null });
        await w.admissions.settle({
          workspaceId: s.workspaceId,
          admissionId: admitted.admissionId,
          outcome: "resolved",
        });
      },
    });

    const captured = await archiverOf(w, { over: racing }).capture(lease, { actor: "test" });

    // Not published as generation 2 without late.txt: refused, nothing stored.
    expect(captured).toMatchObject({ kind: "refused", reason: "admissions_unsettled" });
    expect(await currentLease(w, s)).toMatchObject({
      workspaceGeneration: 2,
      archiveComplete: false,
    });
    expect(await listArchives(w.db, box.lease.id)).toHaveLength(0);
  });

  it("a capture of a revision the lease already has stores no new blob and only raises its generation", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const box = await establish(w, s);
    await writeInBox(w, { session: s, box }, "printf same > same.txt");
    const first = await archiverOf(w).capture(await currentLease(w, s), { actor: "test" });
    await writeInBox(w, { session: s, box }, "printf same > same.txt");
    const second = await archiverOf(w).capture(await currentLease(w, s), { actor: "test" });

    expect(second).toMatchObject({
      kind: "published",
      generation: 2,
      revision: first.kind === "published" ? first.revision : "",
    });
    expect(await listArchives(w.db, box.lease.id)).toMatchObject([{ generation: 2 }]);
    expect(await blobsOf(box.lease.id)).toHaveLength(1);
    expect(await strayBlobs()).toEqual([]);
  });

  it("drain: zero holders → draining → capture → stop → cold; the next acquire restores it", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const box = await establish(w, s);
    await writeInBox(w, { session: s, box }, "mkdir -p work && printf kept > work/kept.txt");
    const before = await box.client.manifest();
    await w.leases.release({ ...s, leaseId: box.lease.id, kind: "direct", holderId: box.holderId });
    w.clock.advance(w.config.idleGraceMs);

    const reaper = new ReaperSystem({
      resources: resourcesOf(w),
      drainPort: backendDrainPort({
        backends: BackendRegistry.of(backend),
        archiver: archiverOf(w),
      }),
    });
    const report = await reaper.sweepOnce();

    expect(report.drains).toEqual([{ leaseId: box.lease.id, result: "cold" }]);
    expect(await boxProcessesGone(box.instanceId)).toBe(true);
    expect(await currentLease(w, s)).toMatchObject({
      liveness: "cold",
      restoreStatus: "pending",
      archiveRevision: before.revision,
      archiveComplete: true,
    });
    const restored = await establish(w, s);
    expect(await restored.client.manifest()).toEqual(before);
  });

  it("retention never removes the current revision, even under concurrent captures", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const box = await establish(w, s);
    const archiver = archiverOf(w, { keepRevisions: 1 });
    const captures: Promise<unknown>[] = [];
    for (let round = 0; round < 6; round += 1) {
      await writeInBox(w, { session: s, box }, `printf ${String(round)} > round.txt`);
      captures.push(archiver.capture(await currentLease(w, s), { actor: "test" }));
    }
    await Promise.all(captures);
    await writeInBox(w, { session: s, box }, "printf final > round.txt");
    await archiver.capture(await currentLease(w, s), { actor: "test" });

    const lease = await currentLease(w, s);
    const rows = await listArchives(w.db, lease.id);
    expect(rows.map((row) => row.revision)).toEqual([lease.archiveRevision]);
    expect(lease.archiveRevision).toBe((await box.client.manifest()).revision);
    expect(await blobsOf(lease.id)).toEqual(rows.map((row) => row.storageKey));
    expect(await strayBlobs()).toEqual([]);
  });

  it("the periodic checkpoint captures a warm lease once its writes are quiet, so archiveComplete turns true", async () => {
    const w = world.current;
    const s = await seedSession(w.db);
    const box = await establish(w, s);
    const checkpoints = new CheckpointSystem({
      resources: resourcesOf(w),
      archiver: archiverOf(w),
      quietMs: 60_000,
    });
    await writeInBox(w, { session: s, box }, "printf draft > notes.md");

    expect(await checkpoints.sweepOnce()).toEqual([]);
    w.clock.advance(60_001);
    expect(await checkpoints.sweepOnce()).toEqual([{ leaseId: box.lease.id, result: "published" }]);
    expect(await currentLease(w, s)).toMatchObject({
      archiveComplete: true,
      archiveRevision: (await box.client.manifest()).revision,
    });
    expect(await checkpoints.sweepOnce()).toEqual([]);
  });
});
