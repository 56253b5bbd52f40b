// Issue 36: two web processes and a worker on one Postgres, all on the S3 archive store. A box
// captured through replica A is rematerialized through replica B, byte-identical; a later write
// checkpointed by the worker comes back through A. A serves from this process, B from an OS
// process of its own, and the worker runs its real entry in a third. Each reaches the bucket
// through its environment (BERTH_ARCHIVE_URL, BERTH_S3_*, AWS_*) and local boxes through one
// data folder (one machine); nothing passes between them but Postgres, the folder and the bucket.
import { createHash, randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import { createS3Client } from "@berth/sandbox";
import { killBox } from "@berth/sandbox/testing";
import { useS3Server } from "@berth/testkit";
import { TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { serveApi, type ServedApi } from "../src/index.ts";
import { useApiSuite } from "./support/apiSuite.ts";
import {
  replicaClient,
  serveReplicaProcess,
  startScript,
  type ScriptProcess,
  type ServedReplica,
} from "./support/processes.ts";
import { publicUrl, testSecret } from "./support/testApi.ts";
import { seedWorkspace, type SeededWorkspace } from "./support/world.ts";

const s3 = useS3Server();
const prefix = `replicas-${randomBytes(4).toString("hex")}`;

/** The S3 store as every process of the deployment is given it: URL, endpoint, credentials. */
function storeEnv(): Record<string, string> {
  const server = s3.current;
  return {
    BERTH_ARCHIVE_URL: `s3://${server.bucket}/${prefix}`,
    BERTH_S3_ENDPOINT: server.endpoint,
    BERTH_S3_REGION: server.region,
    BERTH_S3_FORCE_PATH_STYLE: "true",
    AWS_ACCESS_KEY_ID: server.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: server.credentials.secretAccessKey,
  };
}

/** Replica A: the suite's API, built from the same environment as B and the worker. */
const suite = useApiSuite({ env: storeEnv });
const workerEntry = join(import.meta.dirname, "..", "..", "..", "apps", "worker", "src", "main.ts");

let world: SeededWorkspace;
let replicaA: ServedApi;
let replicaB: ServedReplica;
let worker: ScriptProcess;
let bucket: S3Client;

beforeAll(async () => {
  // A's S3 client, like any, takes its credentials from the AWS chain: this process's env.
  vi.stubEnv("AWS_ACCESS_KEY_ID", s3.current.credentials.accessKeyId);
  vi.stubEnv("AWS_SECRET_ACCESS_KEY", s3.current.credentials.secretAccessKey);
  const deployment = {
    DATABASE_URL: suite.databaseUrl,
    BERTH_SECRET: testSecret,
    BERTH_DATA_DIR: suite.dataDir,
    ...storeEnv(),
  };
  // Sweeping every second; a checkpoint once writes are 3 s quiet: long enough that A's own
  // capture, right after its writes, is not raced by one, short for the worker's turn below.
  worker = startScript(workerEntry, {
    ...deployment,
    BERTH_REAPER_PERIOD_MS: "1000",
    BERTH_CAPTURE_SWEEP_MS: "1000",
    BERTH_CHECKPOINT_QUIET_MS: "3000",
    LOG_LEVEL: "debug",
  });
  [world, replicaA, replicaB] = await Promise.all([
    seedWorkspace(suite.api, suite.db, "s3-replicas"),
    serveApi(suite.api),
    serveReplicaProcess({ ...deployment, BERTH_PUBLIC_URL: publicUrl }),
    worker.until(() => worker.lines.some((line) => line.includes('"worker started"')), "its start"),
  ]);
  const { endpoint, region, credentials } = s3.current;
  bucket = createS3Client({ endpoint, region, credentials, forcePathStyle: true });
}, 60_000);

afterAll(async () => {
  bucket.destroy();
  await Promise.all([replicaA.close(), replicaB.close(), worker.stop()]);
  vi.unstubAllEnvs();
});

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** A file over a replica's streaming route (GET /api/files/download), whole. */
async function download(origin: string, on: object, path: string): Promise<Buffer> {
  const url = new URL(`${origin}/api/files/download`);
  for (const [key, value] of Object.entries({ ...on, path })) url.searchParams.set(key, value);
  const response = await fetch(url, { headers: { authorization: `Bearer ${world.adminToken}` } });
  if (!response.ok) throw new Error(`download ${path}: ${String(response.status)}`);
  return Buffer.from(await response.arrayBuffer());
}

/** A file over a replica's streaming route (PUT /api/files/upload), its folders made. */
async function upload(origin: string, on: object, file: { path: string; bytes: Buffer }) {
  const url = new URL(`${origin}/api/files/upload`);
  const query = { ...on, path: file.path, createParents: "1" };
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const response = await fetch(url, {
    method: "PUT",
    headers: { authorization: `Bearer ${world.adminToken}` },
    body: file.bytes,
  });
  if (!response.ok) throw new Error(`upload ${file.path}: ${await response.text()}`);
}

/** The keys under `folder` of the bucket. */
async function keysUnder(folder: string): Promise<string[]> {
  const listed = await bucket.send(
    new ListObjectsV2Command({ Bucket: s3.current.bucket, Prefix: folder }),
  );
  return (listed.Contents ?? []).map((object) => object.Key ?? "");
}

async function leaseOf(sessionId: string) {
  const session = await suite.db.session.findUniqueOrThrow({ where: { id: sessionId } });
  return suite.db.sandboxLease.findFirstOrThrow({
    where: { workspaceId: world.workspaceId, sandboxGroupId: session.sandboxGroupId },
  });
}

/** The worker's capture sweeps so far (it logs each, at debug when it found nothing). */
const captureSweeps = () => worker.lines.filter((line) => line.includes("abandoned capture"));
/** The worker's checkpoints so far (a sweep that captured something logs it). */
const checkpoints = () => worker.lines.filter((line) => line.includes('"checkpoint sweep"'));

type Client = ReturnType<typeof replicaClient>;
interface File {
  readonly path: string;
  readonly bytes: Buffer;
}

/** The session's box is lost: its processes killed and its folder gone (nothing to resume). */
async function loseBox(sessionId: string): Promise<string> {
  const instanceId = (await leaseOf(sessionId)).instanceId ?? "";
  expect(instanceId).not.toBe("");
  await killBox(instanceId);
  await rm(join(suite.dataDir, "boxes", instanceId), { recursive: true, force: true });
  return instanceId;
}

/**
 * Through one replica after a loss: the first call finds the box gone (retryable), the next
 * rematerializes it from the bucket, and every file comes back byte for byte.
 */
async function expectRematerialized(
  through: { client: Client; origin: string },
  on: { workspaceId: string; sessionId: string },
  files: readonly File[],
): Promise<void> {
  const first = await through.client.fs.list
    .query({ ...on, path: "" })
    .catch((error: unknown) => error);
  expect(first).toBeInstanceOf(TRPCClientError);
  expect((first as TRPCClientError<never>).data).toMatchObject({
    berth: { code: "instance_lost", retryable: true },
  });
  for (const file of files)
    expect(sha256(await download(through.origin, on, file.path)), file.path).toBe(
      sha256(file.bytes),
    );
}

describe("issue 36: two web replicas and a worker on one Postgres, on the S3 archive store", () => {
  it("a box captured through A is rematerialized through B, byte-identical; checkpointed by the worker, through A again; nothing is left pending", async () => {
    const a = {
      client: replicaClient({ url: `${replicaA.url}/api/trpc` }, world.adminToken),
      origin: replicaA.url,
    };
    const b = { client: replicaClient(replicaB, world.adminToken), origin: replicaB.origin };
    const on = { workspaceId: world.workspaceId, sessionId: world.boxSessionId };
    const notes = "kept across replicas\n";
    const files: File[] = [
      { path: "notes.txt", bytes: Buffer.from(notes) },
      { path: "src/deep/er/nested.md", bytes: Buffer.from("# three folders down\n") },
      { path: "bin/blob.dat", bytes: randomBytes(3 * 1024 * 1024) },
    ];

    // Through A: the box is made, the files written (over tRPC and the streaming route), and
    // the workspace captured into the bucket.
    await a.client.fs.write.mutate({ ...on, path: "notes.txt", content: notes });
    for (const file of files.slice(1)) await upload(replicaA.url, on, file);
    const captured = await a.client.archives.capture.mutate(on);
    expect(captured.archiveComplete).toBe(true);

    const lostFirst = await loseBox(on.sessionId);
    await expectRematerialized(b, on, files);
    expect((await b.client.fs.read.query({ ...on, path: "notes.txt" })).content).toBe(notes);
    const restored = await leaseOf(on.sessionId);
    // Live again (draining once B's calls released it: it waits out its idle grace there).
    expect(["warm", "draining"]).toContain(restored.liveness);
    expect(restored).toMatchObject({
      restoreStatus: "ready",
      selectedRevision: captured.revision,
    });
    expect(restored.instanceId).not.toBe(lostFirst);

    // Through B, one more file; the worker's checkpoint (its own process and S3 client)
    // captures it once the writes are quiet; lost again, A brings that capture back.
    const later: File = { path: "later.txt", bytes: Buffer.from("written through B\n") };
    const checkpointed = checkpoints().length;
    await b.client.fs.write.mutate({ ...on, path: later.path, content: later.bytes.toString() });
    await worker.until(() => checkpoints().length > checkpointed, "the worker's checkpoint");
    const byWorker = await leaseOf(on.sessionId);
    // Complete: the archive is of the workspace's latest generation, later.txt's.
    expect(byWorker.archiveGeneration).toBe(byWorker.workspaceGeneration);
    expect(byWorker.archiveRevision).not.toBe(captured.revision);
    await loseBox(on.sessionId);
    await expectRematerialized(a, on, [...files, later]);
    expect(await leaseOf(on.sessionId)).toMatchObject({
      restoreStatus: "ready",
      selectedRevision: byWorker.archiveRevision,
    });

    // The bucket holds exactly the archives' blobs, each at its key with the bytes its row
    // describes (A's capture and the worker's among them).
    const rows = await suite.db.workspaceArchive.findMany({ where: { leaseId: byWorker.id } });
    expect(rows.map((row) => row.revision)).toEqual(
      expect.arrayContaining([captured.revision, byWorker.archiveRevision]),
    );
    // Blobs are content-addressed: rows of the same bytes share one.
    const keys = [...new Set(rows.map((row) => `${prefix}/${row.storageKey}`))];
    expect((await keysUnder(`${prefix}/`)).sort()).toEqual(keys.sort());
    for (const row of rows) {
      const object = await bucket.send(
        new GetObjectCommand({ Bucket: s3.current.bucket, Key: `${prefix}/${row.storageKey}` }),
      );
      const bytes = (await object.Body?.transformToByteArray()) ?? new Uint8Array();
      expect(sha256(bytes), row.revision).toBe(row.sha256);
    }

    // Once the worker has swept after all of it: nothing pending in the bucket or the ledger,
    // and it never found a capture to clean up after (each cleaned up after itself).
    const swept = captureSweeps().length;
    await worker.until(() => captureSweeps().length >= swept + 2, "a whole capture sweep");
    expect(await keysUnder(`${prefix}/.incoming/`)).toEqual([]);
    expect(await suite.db.archiveUpload.count()).toBe(0);
    expect(captureSweeps().every((line) => line.includes("none found"))).toBe(true);
  });
});
