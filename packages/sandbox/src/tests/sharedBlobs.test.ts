import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { blobKey } from "../archives/archiveFormat.ts";
import type { ArchiveStore } from "../archives/archiveStore.ts";
import { FilesystemArchiveStore } from "../archives/filesystemArchiveStore.ts";
import { BlobVanishedError, SharedBlobs } from "../archives/sharedBlobs.ts";
import { archivedWarmLease, seedSession, useLeaseWorld, type LeaseWorld } from "./leaseFixture.ts";

// Issue 36: blobs are content-addressed and shared by every row of the same bytes. A publish and
// a delete of one blob exclude each other (a lock on its key), with real concurrency on Postgres.

const world = useLeaseWorld();
let root = "";
let store: FilesystemArchiveStore;
/** The test's blob: a content address of its own (the database outlives each test). */
let key = "";

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "berth-shared-blobs-"));
  store = new FilesystemArchiveStore({ root });
  key = blobKey(randomBytes(32).toString("hex"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function storeBlob(at: ArchiveStore, bytes = "shared bytes"): Promise<void> {
  const pending = await at.begin();
  pending.sink.end(Buffer.from(bytes));
  await pending.commit(key);
}

/** An archived lease whose one archive row refers to `key`; answers the row's id. */
async function rowOnKey(w: LeaseWorld): Promise<string> {
  const lease = await archivedWarmLease(w, await seedSession(w.db), `box-${randomUUID()}`);
  const row = await w.db.workspaceArchive.findFirstOrThrow({ where: { leaseId: lease.id } });
  await w.db.workspaceArchive.update({ where: { id: row.id }, data: { storageKey: key } });
  return row.id;
}

const blobs = (w: LeaseWorld, at: ArchiveStore = store) =>
  new SharedBlobs({ db: w.db, store: at, clock: w.clock });

/** Resolves once some session waits for an advisory lock (a blob's) another one holds. */
async function someoneWaitsForABlobLock(w: LeaseWorld): Promise<void> {
  for (;;) {
    const rows = await w.db.$queryRaw<{ waiting: bigint }[]>`
      SELECT count(*) AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`;
    if ((rows[0]?.waiting ?? 0n) > 0n) return;
  }
}

function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let enter: () => void = () => undefined;
  const entered = new Promise<void>((resolve) => (enter = resolve));
  return { opened, open, entered, enter };
}

/** The filesystem store whose deletes wait at a gate, holding whatever lock their caller holds. */
function gatedRemoves(inner: FilesystemArchiveStore, at: ReturnType<typeof gate>): ArchiveStore {
  return {
    kind: inner.kind,
    begin: (tag) => inner.begin(tag),
    sweepAbandoned: (onAbandoned) => inner.sweepAbandoned(onAbandoned),
    digest: (k, onBytes) => inner.digest(k, onBytes),
    exists: (k) => inner.exists(k),
    open: (k) => inner.open(k),
    health: () => inner.health(),
    remove: async (k) => {
      at.enter();
      await at.opened;
      await inner.remove(k);
    },
  };
}

describe("shared archive blobs", () => {
  it("keeps a blob while any usable row, of any lease, refers to it", async () => {
    const w = world.current;
    const [first, second] = [await rowOnKey(w), await rowOnKey(w)];
    await storeBlob(store);

    await w.db.workspaceArchive.delete({ where: { id: first } });
    expect(await blobs(w).removeUnreferenced(key)).toBe(false);
    expect(await store.exists(key)).toBe(true);
    // A row whose blob a restore found wrong refers to nothing worth keeping.
    await w.db.workspaceArchive.update({ where: { id: second }, data: { status: "invalid" } });
    expect(await blobs(w).removeUnreferenced(key)).toBe(true);
    expect(await store.exists(key)).toBe(false);
  });

  it("drops a blob a restore found wrong before the same content is stored again", async () => {
    const w = world.current;
    const id = await rowOnKey(w);
    await storeBlob(store, "bad bytes");
    await blobs(w).dropKnownBad(key);
    expect(await store.exists(key)).toBe(true);

    await w.db.workspaceArchive.update({ where: { id }, data: { status: "invalid" } });
    await blobs(w).dropKnownBad(key);
    expect(await store.exists(key)).toBe(false);
  });

  it("a delete waits for a publish under way; the row it publishes keeps the blob", async () => {
    const w = world.current;
    const id = await rowOnKey(w);
    await w.db.workspaceArchive.update({ where: { id }, data: { storageKey: "elsewhere" } });
    await storeBlob(store);
    const publishing = gate();

    const published = blobs(w).publishWith(key, async ({ tx }) => {
      publishing.enter();
      await publishing.opened;
      await tx.workspaceArchive.update({ where: { id }, data: { storageKey: key } });
      return "published";
    });
    await publishing.entered;
    const removed = blobs(w).removeUnreferenced(key);
    await someoneWaitsForABlobLock(w);
    publishing.open();

    expect(await published).toBe("published");
    expect(await removed).toBe(false);
    expect(await store.exists(key)).toBe(true);
  });

  it("a publish waits for a delete under way, finds the blob gone, and publishes nothing", async () => {
    const w = world.current;
    const id = await rowOnKey(w);
    await w.db.workspaceArchive.update({ where: { id }, data: { storageKey: "elsewhere" } });
    await storeBlob(store);
    const removing = gate();
    let publishedRow = false;

    const removed = blobs(w, gatedRemoves(store, removing)).removeUnreferenced(key);
    await removing.entered;
    const published = blobs(w).publishWith(key, async ({ tx }) => {
      publishedRow = true;
      await tx.workspaceArchive.update({ where: { id }, data: { storageKey: key } });
    });
    await someoneWaitsForABlobLock(w);
    removing.open();

    expect(await removed).toBe(true);
    await expect(published).rejects.toBeInstanceOf(BlobVanishedError);
    expect(publishedRow).toBe(false);
    expect((await w.db.workspaceArchive.findUniqueOrThrow({ where: { id } })).storageKey).toBe(
      "elsewhere",
    );
  });
});
