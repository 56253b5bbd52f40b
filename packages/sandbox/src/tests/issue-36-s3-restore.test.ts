import { createHash, randomBytes, randomUUID } from "node:crypto";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { useS3Server, type TestS3Server } from "@berth/testkit";
import { describe, expect, it } from "vitest";
import { ArchiveIntegrityError } from "../archives/archiveErrors.ts";
import { findArchive } from "../archives/archiveRows.ts";
import { ArchiveRestorer } from "../archives/archiveRestorer.ts";
import { S3ArchiveStore } from "../archives/s3ArchiveStore.ts";
import { createS3Client } from "../archives/s3Client.ts";
import type { LeaseSnapshot } from "../lease/snapshot.ts";
import { archivedWarmLease, seedSession, useLeaseWorld, type LeaseWorld } from "./leaseFixture.ts";

// Issue 36: a restore from the S3 store keeps its pre-check (size and sha256 read end to end)
// through dropped connections, and refuses a flipped byte with the filesystem store's error.

const world = useLeaseWorld();
const s3 = useS3Server();
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
