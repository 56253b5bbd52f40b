import { randomBytes } from "node:crypto";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { useS3Server } from "@berth/testkit";
import { describe, expect, it } from "vitest";
import { ArchiveRestorer } from "../archives/archiveRestorer.ts";
import type { ArchiveProgress } from "../archives/progress.ts";
import { S3ArchiveStore } from "../archives/s3ArchiveStore.ts";
import { createS3Client } from "../archives/s3Client.ts";
import { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";
import { SpawnerSystem } from "../spawner/spawnerSystem.ts";
import { currentLease, establishBox, writeInBox } from "./boxFixture.ts";
import { seedSession, useLeaseWorld, type LeaseWorld } from "./leaseFixture.ts";
import { useLocalBackend } from "./spawnerFixture.ts";

// Issue 36: the bucket stops answering while a real box's capture streams into it. No revision
// is published, the capture's transfer ends failed, the next capture succeeds, and the upload
// the failed capture gave up is aborted and deleted by the next sweep.

const world = useLeaseWorld();
const s3 = useS3Server();
const local = useLocalBackend();

const resourcesOf = (w: LeaseWorld) => ({ db: w.db, clock: w.clock, config: w.config });

function bucketStore(w: LeaseWorld) {
  const server = s3.current;
  const client = createS3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: server.credentials,
  });
  const prefix = `capture-${randomBytes(4).toString("hex")}`;
  // 5 MiB parts: a capture of a few MB of random bytes is a multipart upload of several parts.
  const store = new S3ArchiveStore({
    client,
    bucket: server.bucket,
    prefix,
    db: w.db,
    partSizeBytes: 5 * 1024 * 1024,
  });
  const keysUnder = async (under: string) => {
    const listed = await client.send(
      new ListObjectsV2Command({ Bucket: server.bucket, Prefix: `${prefix}/${under}` }),
    );
    return (listed.Contents ?? []).flatMap((object) => object.Key ?? []);
  };
  return { store, prefix, keysUnder };
}

/** Resolves once a capture's multipart upload is under way: S3 gave it an id, parts follow. */
async function uploadUnderWay(w: LeaseWorld): Promise<string> {
  for (;;) {
    const row = await w.db.archiveUpload.findFirst({ where: { uploadId: { not: null } } });
    if (row?.uploadId != null) return row.uploadId;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("issue 36: capturing into the S3 archive store", () => {
  it("the bucket stopping mid-upload publishes nothing; the next capture succeeds; the upload is swept", async () => {
    const w = world.current;
    const { store, prefix, keysUnder } = bucketStore(w);
    const s = await seedSession(w.db);
    const spawner = new SpawnerSystem({
      resources: resourcesOf(w),
      backends: BackendRegistry.of(local.backend),
      restorer: new ArchiveRestorer({ db: w.db, store }),
    });
    const box = await establishBox(w, s, { spawner, backend: local.backend });
    await writeInBox(w, { session: s, box }, "head -c 16000000 /dev/urandom > noise.bin");
    const progress: ArchiveProgress[] = [];
    const archiver = new WorkspaceArchiver({
      resources: resourcesOf(w),
      backends: BackendRegistry.of(local.backend),
      store,
      onProgress: (event) => progress.push(event),
    });

    const capturing = archiver.capture(await currentLease(w, s), { actor: "test" });
    const uploadId = await uploadUnderWay(w);
    await s3.current.stop();
    expect(await capturing).toMatchObject({ kind: "unavailable" });
    await s3.current.restart();

    expect(await currentLease(w, s)).toMatchObject({
      archiveRevision: null,
      archiveComplete: false,
    });
    expect(await w.db.workspaceArchive.count({ where: { leaseId: box.lease.id } })).toBe(0);
    expect(progress.at(-1)).toMatchObject({ operation: "capture", phase: "failed" });
    expect(await keysUnder("blobs/")).toEqual([]);

    const next = await archiver.capture(await currentLease(w, s), { actor: "test" });
    const manifest = await box.client.manifest();
    expect(next).toMatchObject({ kind: "published", revision: manifest.revision });
    expect(await currentLease(w, s)).toMatchObject({
      archiveRevision: manifest.revision,
      archiveComplete: true,
    });
    const [row] = await w.db.workspaceArchive.findMany({ where: { leaseId: box.lease.id } });
    expect(await keysUnder("blobs/")).toEqual([`${prefix}/${row?.storageKey ?? ""}`]);

    // The failed capture gave its upload up (the bucket was down when it tried to delete it):
    // the next sweep aborts it and deletes what it left, though this process lives on.
    expect(await store.sweepAbandoned()).toEqual({ removed: 1, deferred: 0 });
    expect(s3.current.abortedUploads().map((aborted) => aborted.uploadId)).toContain(uploadId);
    expect(await keysUnder(".incoming/")).toEqual([]);
    expect(await w.db.archiveUpload.count()).toBe(0);
  });
});
