import { createHash, randomBytes, randomUUID } from "node:crypto";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { useS3Server, type TestS3Server } from "@berth/testkit";
import { describe, expect, it } from "vitest";
import { ArchiveIntegrityError } from "../archives/archiveErrors.ts";
import { MAX_RESUMES } from "../archives/s3ResumableRead.ts";
import { findArchive } from "../archives/archiveRows.ts";
import { ArchiveRestorer } from "../archives/archiveRestorer.ts";
import { S3ArchiveStore } from "../archives/s3ArchiveStore.ts";
import { createS3Client } from "../archives/s3Client.ts";
import { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import type { Backend } from "../spawner/backend.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";
import { SpawnError } from "../spawner/spawnError.ts";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import {
  acquireSpawner,
  currentLease,
  download,
  establishBox,
  loseBox,
  writeInBox,
  type WarmBox,
} from "./boxFixture.ts";
import {
  archivedWarmLease,
  seedSession,
  useLeaseWorld,
  type LeaseWorld,
  type SeededSession,
} from "./leaseFixture.ts";
import { boxProcessesGone, killBox, RacepointBackend, useLocalBackend } from "./spawnerFixture.ts";

// Issue 36: a restore from the S3 store keeps its pre-check (size and sha256 read end to end)
// through dropped connections, and refuses a flipped byte with the filesystem store's error.
// A real box (local backend, real boxd) captured to the bucket and lost is rematerialized while
// the bucket cuts the blob's connection mid-hydrate: resumed and verified, or — dropped more
// often than a read resumes — failed as retryable, with no box left serving part of it.

const world = useLeaseWorld();
const s3 = useS3Server();
const local = useLocalBackend();
const server = (): TestS3Server => s3.current;

function s3Store() {
  const client = createS3Client({
    endpoint: server().endpoint,
    region: server().region,
    forcePathStyle: true,
    credentials: server().credentials,
  });
  const prefix = `restore-${randomBytes(4).toString("hex")}`;
  return { client, prefix, store: new S3ArchiveStore({ client, bucket: server().bucket, prefix }) };
}

/** A lease whose selected revision's row describes `bytes`, stored in the S3 store at its key. */
async function leaseWithBlob(w: LeaseWorld, store: S3ArchiveStore, bytes: Buffer) {
  const archived = await archivedWarmLease(w, await seedSession(w.db), `box-${randomUUID()}`);
  const revision = archived.archiveRevision;
  if (revision === null) throw new Error("no revision published");
  // As a spawner restoring it after its box is lost: the archive's revision selected.
  const lease: LeaseSnapshot = { ...archived, selectedRevision: revision };
  const storageKey = `workspaces/${lease.workspaceId}/leases/${lease.id}/${revision}.tar.gz`;
  const pending = await store.begin();
  pending.sink.end(bytes);
  const digest = await pending.digest;
  await pending.commit(storageKey);
  await w.db.workspaceArchive.updateMany({
    where: { leaseId: lease.id, revision },
    data: { storageKey, sha256: digest.sha256, sizeBytes: digest.sizeBytes },
  });
  return { lease, revision, storageKey };
}

const resourcesOf = (w: LeaseWorld) => ({ db: w.db, clock: w.clock, config: w.config });

/** A spawner restoring from `store`, creating boxes through `over` (default: the real backend). */
function spawnerOf(w: LeaseWorld, store: S3ArchiveStore, over: Backend = local.backend) {
  return new SpawnerSystem({
    resources: resourcesOf(w),
    backends: BackendRegistry.of(over),
    restorer: new ArchiveRestorer({ db: w.db, store }),
    readinessTimeoutMs: 10_000,
  });
}

/**
 * The backend, arming the bucket to cut the next `drops` reads once the box exists: after the
 * spawner's pre-check read the blob whole, so every cut falls on the hydrate's stream.
 */
function droppingOnHydrate(drops: number): Backend {
  return new RacepointBackend(local.backend, {
    afterCreate: () => {
      server().dropReads(drops, 512 * 1024);
      return Promise.resolve();
    },
  });
}

const TREE = `
mkdir -p src/deep/er
head -c 3000000 /dev/urandom > blob.bin
printf 'nested\\n' > src/deep/er/a.txt
printf 'top\\n' > top.txt
`;

/** A real box with TREE captured into the bucket, then lost: the lease is cold, restore pending. */
async function capturedAndLost(w: LeaseWorld, store: S3ArchiveStore) {
  const s = await seedSession(w.db);
  const box = await establishBox(w, s, { spawner: spawnerOf(w, store), backend: local.backend });
  await writeInBox(w, { session: s, box }, TREE);
  const manifest = await box.client.manifest();
  const blob = await download(box.client, "blob.bin");
  const archiver = new WorkspaceArchiver({
    resources: resourcesOf(w),
    backends: BackendRegistry.of(local.backend),
    store,
  });
  const captured = await archiver.capture(await currentLease(w, s), { actor: "test" });
  expect(captured).toMatchObject({ kind: "published", revision: manifest.revision });
  await loseBox(w, s, box);
  return { s, manifest, blob, leaseId: box.lease.id };
}

/** The restore attempts of a lease, oldest first. */
async function attemptsOf(w: LeaseWorld, leaseId: string) {
  return w.db.rematerialization.findMany({
    where: { leaseId },
    orderBy: { startedAt: "asc" },
    select: { status: true, failureCode: true, retryable: true },
  });
}

/** The restored box holds the captured workspace, verified: same revision, same bytes. */
async function expectHoldsCapture(
  restored: WarmBox,
  lost: { manifest: { revision: string }; blob: Buffer },
) {
  expect(restored.lease).toMatchObject({
    liveness: "warm",
    restoreStatus: "ready",
    workspaceStatus: "ready",
    selectedRevision: lost.manifest.revision,
  });
  expect(await restored.client.manifest()).toEqual(lost.manifest);
  expect(sha256(await download(restored.client, "blob.bin"))).toBe(sha256(lost.blob));
  expect((await download(restored.client, "src/deep/er/a.txt")).toString()).toBe("nested\n");
}

/** One restore of the lost lease through `over`, expected to fail; the box it created. */
async function failedRestore(
  w: LeaseWorld,
  lost: { s: SeededSession; store: S3ArchiveStore; over: Backend },
): Promise<{ failure: SpawnError; created: string }> {
  let created = "";
  const noting = new RacepointBackend(lost.over, {
    afterCreate: (instanceId) => {
      created = instanceId;
      return Promise.resolve();
    },
  });
  const { lease } = await acquireSpawner(w, lost.s);
  const failure = await spawnerOf(w, lost.store, noting)
    .establish(lease)
    .catch((error: unknown) => error);
  if (!(failure instanceof SpawnError))
    throw new Error(`expected a SpawnError: ${String(failure)}`);
  return { failure, created };
}

/**
 * After a failed restore: the box it created is gone, the lease is cold and degraded with one
 * retry left (retryable), the attempt failed with `code`, and the blob's row is still usable.
 */
async function expectRetryableAndNothingServing(
  w: LeaseWorld,
  failed: {
    s: SeededSession;
    leaseId: string;
    created: string;
    code: string;
    manifest: { revision: string };
  },
) {
  expect(failed.created).not.toBe("");
  expect(await boxProcessesGone(failed.created)).toBe(true);
  expect(await currentLease(w, failed.s)).toMatchObject({
    liveness: "cold",
    instanceId: null,
    restoreStatus: "degraded",
    failureCode: failed.code,
    retryable: true,
  });
  expect(await attemptsOf(w, failed.leaseId)).toEqual([
    { status: "failed", failureCode: failed.code, retryable: true },
  ]);
  const row = await findArchive(w.db, {
    leaseId: failed.leaseId,
    revision: failed.manifest.revision,
  });
  expect(row).toMatchObject({ status: "available" });
}

/** Retryable told the truth: the next spawn (nothing dropped, nothing killed) restores it whole. */
async function expectRetryRestoresWhole(
  w: LeaseWorld,
  lost: { s: SeededSession; store: S3ArchiveStore; manifest: { revision: string }; blob: Buffer },
) {
  const retried = await establishBox(w, lost.s, {
    spawner: spawnerOf(w, lost.store),
    backend: local.backend,
  });
  await expectHoldsCapture(retried, lost);
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("issue 36: restoring from the S3 archive store", () => {
  it("checks a blob whose connection drops mid-read: resumed where it stopped, the same sha256", async () => {
    const w = world.current;
    const { store, client } = s3Store();
    const bytes = randomBytes(2 * 1024 * 1024);
    const { lease, revision } = await leaseWithBlob(w, store, bytes);
    const restorer = new ArchiveRestorer({ db: w.db, store });

    server().dropReads(2, 300_000);
    const row = await restorer.check(lease);
    expect(row).toMatchObject({
      revision,
      sha256: createHash("sha256").update(bytes).digest("hex"),
    });
    client.destroy();
  });

  it("refuses a blob with a flipped byte as archive_corrupt and marks its row invalid", async () => {
    const w = world.current;
    const { store, client, prefix } = s3Store();
    const bytes = randomBytes(256 * 1024);
    const { lease, revision, storageKey } = await leaseWithBlob(w, store, bytes);
    const flipped = Buffer.from(bytes);
    flipped[1000] = (flipped[1000] ?? 0) ^ 0x01;
    await client.send(
      new PutObjectCommand({
        Bucket: server().bucket,
        Key: `${prefix}/${storageKey}`,
        Body: flipped,
      }),
    );

    const failure = await new ArchiveRestorer({ db: w.db, store })
      .check(lease)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ArchiveIntegrityError);
    expect(failure).toMatchObject({ code: "archive_corrupt", retryable: false });
    expect(await findArchive(w.db, { leaseId: lease.id, revision })).toMatchObject({
      status: "invalid",
    });
    client.destroy();
  });
});

describe("issue 36: a real box rematerialized from the S3 store while the blob's connection drops", () => {
  it("dropped twice mid-hydrate: resumed, verified, the workspace byte-identical", async () => {
    const w = world.current;
    const { store, client } = s3Store();
    const lost = await capturedAndLost(w, store);
    const cutBefore = server().droppedReads();

    const restored = await establishBox(w, lost.s, {
      spawner: spawnerOf(w, store, droppingOnHydrate(2)),
      backend: local.backend,
    });

    // Both cuts fell on the hydrate's stream (armed after the pre-check), and it went on.
    expect(server().droppedReads() - cutBefore).toBe(2);
    // Verified: boxd recomputed the revision from its disk, and it is the captured one.
    expect(await attemptsOf(w, lost.leaseId)).toEqual([
      { status: "ready", failureCode: null, retryable: null },
    ]);
    await expectHoldsCapture(restored, lost);
    client.destroy();
  });

  it("dropped more often than a read resumes: failed as the store's (archive_unverified), retryable, no box left serving; the retry restores it whole", async () => {
    const w = world.current;
    const { store, client } = s3Store();
    const lost = await capturedAndLost(w, store);
    const cutBefore = server().droppedReads();

    const { failure, created } = await failedRestore(w, {
      ...lost,
      store,
      over: droppingOnHydrate(MAX_RESUMES + 1),
    });

    expect(server().droppedReads() - cutBefore).toBe(MAX_RESUMES + 1);
    // Named for what failed: the store's read, not the box nor the bytes.
    expect(failure).toMatchObject({ code: "restore_failed", failureCode: "archive_unverified" });
    expect(failure.message).toContain(`dropped ${String(MAX_RESUMES + 1)} times`);
    expect(failure.cause).toMatchObject({
      code: "archive_unverified",
      retryable: true,
      cause: { name: "ArchiveStoreError", code: "io" },
    });
    await expectRetryableAndNothingServing(w, { ...lost, created, code: "archive_unverified" });
    await expectRetryRestoresWhole(w, { ...lost, store });
    client.destroy();
  });

  it("the box dying mid-hydrate (the store fine): archive_hydration_failed, retryable — not corrupt; the retry restores it whole", async () => {
    const w = world.current;
    const { store, client } = s3Store();
    const lost = await capturedAndLost(w, store);

    const { failure, created } = await failedRestore(w, {
      ...lost,
      store,
      over: new RacepointBackend(local.backend, { midHydrate: killBox }),
    });

    expect(failure).toMatchObject({
      code: "restore_failed",
      failureCode: "archive_hydration_failed",
    });
    expect(failure.cause).toMatchObject({ retryable: true, cause: { name: "BoxError" } });
    await expectRetryableAndNothingServing(w, {
      ...lost,
      created,
      code: "archive_hydration_failed",
    });
    await expectRetryRestoresWhole(w, { ...lost, store });
    client.destroy();
  });
});
