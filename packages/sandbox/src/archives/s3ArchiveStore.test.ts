import { randomBytes, randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { ListObjectsV2Command, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { useS3Server, useTestDatabase, type TestS3Server } from "@berth/testkit";
import { afterEach, describe, expect, it } from "vitest";
import type { PendingBlobTag } from "./archiveStore.ts";
import { describeArchiveStoreContract } from "./contract/index.ts";
import { S3ArchiveStore } from "./s3ArchiveStore.ts";
import { createS3Client } from "./s3Client.ts";

const database = useTestDatabase();
const s3 = useS3Server();
const server = (): TestS3Server => s3.current;

/** A holder no process is: a pid above any pid_max, on this host. */
const deadOwner = () => ({
  pid: 4_194_304 + 1,
  startTicks: "1",
  bootId: null,
  host: hostname(),
  nonce: "gone",
});

/** The real SDK against s3rver over loopback HTTP; each store keeps to a prefix of its own. */
function s3Fixture() {
  const client = createS3Client({
    endpoint: server().endpoint,
    region: server().region,
    forcePathStyle: true,
    credentials: server().credentials,
  });
  const bucket = server().bucket;
  const prefix = `t-${randomBytes(4).toString("hex")}`;
  const db = database.current.prisma;
  const store = new S3ArchiveStore({
    client,
    bucket,
    endpoint: server().endpoint,
    prefix,
    db,
    partSizeBytes: 5 * 1024 * 1024,
  });
  const incoming = `${prefix}/.incoming/`;
  return {
    client,
    bucket,
    prefix,
    store,
    rows: () => db.archiveUpload.findMany({ where: { objectKey: { startsWith: incoming } } }),
    objects: async (under: string) => {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: under }));
      return (listed.Contents ?? []).flatMap((object) => object.Key ?? []);
    },
  };
}

describeArchiveStoreContract("s3 (s3rver)", () => {
  const fixture = s3Fixture();
  const { client, bucket, store } = fixture;
  const incoming = `${fixture.prefix}/.incoming/`;
  return Promise.resolve({
    store,
    // A pending blob is its row, its temporary object, or both.
    pendingCount: async () => {
      const keys = new Set(await fixture.objects(incoming));
      for (const row of await fixture.rows()) keys.add(row.objectKey);
      return keys.size;
    },
    // A capture whose process died after its temporary object was written.
    abandon: async (tag: PendingBlobTag) => {
      const id = randomUUID();
      const objectKey = `${incoming}${id}`;
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: objectKey, Body: "partial" }));
      await database.current.prisma.archiveUpload.create({
        data: { id, bucket, objectKey, owner: deadOwner(), ...tag },
      });
    },
    location: `s3://${bucket}/${fixture.prefix}`,
    outage: async () => {
      await server().stop();
      return () => server().restart();
    },
    dispose: () => {
      client.destroy();
      return Promise.resolve();
    },
  });
});

describe("the S3 archive store, beyond the contract", () => {
  const clients: S3Client[] = [];
  const fixture = () => {
    const made = s3Fixture();
    clients.push(made.client);
    return made;
  };
  afterEach(async () => {
    await server().restart();
    for (const client of clients.splice(0)) client.destroy();
  });

  it("tells what to check when its health probe fails: the endpoint, the bucket, the credentials", async () => {
    const endpoint = server().endpoint;
    const storeWith = (bucket: string, credentials: TestS3Server["credentials"]) => {
      const client = createS3Client({
        endpoint,
        region: server().region,
        forcePathStyle: true,
        credentials,
      });
      clients.push(client);
      return new S3ArchiveStore({ client, bucket, endpoint, prefix: "p" });
    };
    const known = server().credentials;

    expect(await storeWith("no-such-bucket", known).health()).toEqual({
      reachable: false,
      location: "s3://no-such-bucket/p",
      endpoint,
      problem: `bucket "no-such-bucket" does not exist at ${endpoint}: create it, or fix BERTH_ARCHIVE_URL`,
    });
    const denied = await storeWith(server().bucket, {
      accessKeyId: "NOT-A-KEY",
      secretAccessKey: "x",
    }).health();
    expect(denied).toMatchObject({ reachable: false, endpoint });
    expect(denied.reachable ? "" : denied.problem).toMatch(
      /refused access .*check the credentials/,
    );
    await server().stop();
    const down = await storeWith(server().bucket, known).health({ timeoutMs: 1_000 });
    expect(down.reachable ? "" : down.problem).toMatch(
      new RegExp(`^cannot reach ${endpoint} \\(ECONNREFUSED\\)|did not answer within 1000 ms`),
    );
  });

  it("records an upload with its owner before its first byte, its upload id before its first part, and forgets it on commit", async () => {
    const { store, rows } = fixture();
    const tag = { leaseId: randomUUID(), transferId: randomUUID() };
    const pending = await store.begin(tag);

    expect(await rows()).toMatchObject([
      { uploadId: null, owner: { pid: process.pid, host: hostname() }, ...tag },
    ]);
    pending.sink.end(randomBytes(6 * 1024 * 1024));
    await pending.digest;
    expect((await rows())[0]?.uploadId).toEqual(expect.any(String));
    await pending.commit("k/recorded");
    expect(await rows()).toEqual([]);
  });

  it("survives the server stopping mid-upload: nothing stored, the next capture succeeds, the upload given up is aborted by the next sweep", async () => {
    const { store, rows, prefix, objects } = fixture();
    const tag = { leaseId: randomUUID(), transferId: randomUUID() };
    const pending = await store.begin(tag);
    pending.sink.write(randomBytes(6 * 1024 * 1024));
    // The first part goes once the upload is created: its id recorded is the sign.
    while ((await rows())[0]?.uploadId == null) await new Promise((r) => setImmediate(r));
    const uploadId = (await rows())[0]?.uploadId;

    await server().stop();
    pending.sink.end(randomBytes(1024));
    await expect(pending.commit("k/torn")).rejects.toMatchObject({ code: "io" });
    await server().restart();
    await expect(store.open("k/torn")).rejects.toMatchObject({ code: "not_found" });

    const next = await store.begin();
    next.sink.end(Buffer.from("the next capture"));
    await next.commit("k/torn");
    expect((await store.digest("k/torn")).sizeBytes).toBe("the next capture".length);

    // Its capture gave the torn upload up (its delete failed with the server down): the row
    // names no live owner, so the next sweep takes it while this process lives on.
    expect(await rows()).toMatchObject([{ owner: null, uploadId }]);
    const told: unknown[] = [];
    expect(await store.sweepAbandoned((t) => Promise.resolve(void told.push(t)))).toEqual({
      removed: 1,
      deferred: 0,
    });
    expect(told).toEqual([tag]);
    const abort = server()
      .abortedUploads()
      .find((aborted) => aborted.uploadId === uploadId);
    expect(abort?.key.startsWith(`${prefix}/.incoming/`)).toBe(true);
    expect(await rows()).toEqual([]);
    expect(await objects(`${prefix}/.incoming/`)).toEqual([]);
  });

  it("resumes a read whose connection drops, where it stopped, at most three times", async () => {
    const { store } = fixture();
    const bytes = randomBytes(3 * 1024 * 1024);
    const pending = await store.begin();
    pending.sink.end(bytes);
    const written = await pending.digest;
    await pending.commit("k/dropped");

    server().dropReads(3, 256 * 1024);
    expect(await store.digest("k/dropped")).toEqual(written);
    server().dropReads(3, 100_000);
    const { body, sizeBytes } = await store.open("k/dropped");
    const chunks: Buffer[] = [];
    for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(chunk);
    expect(sizeBytes).toBe(bytes.length);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);

    server().dropReads(4, 100_000);
    await expect(store.digest("k/dropped")).rejects.toMatchObject({
      code: "io",
      message: /dropped 4 times/,
    });
  });

  it("reads a flipped byte as different bytes: the digest no longer matches what was recorded", async () => {
    const { store, client, bucket, prefix } = fixture();
    const bytes = randomBytes(64 * 1024);
    const pending = await store.begin();
    pending.sink.end(bytes);
    const written = await pending.digest;
    await pending.commit("k/flipped");
    const flipped = Buffer.from(bytes);
    flipped[1234] = (flipped[1234] ?? 0) ^ 0xff;
    await client.send(
      new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/k/flipped`, Body: flipped }),
    );

    const read = await store.digest("k/flipped");
    expect(read.sizeBytes).toBe(written.sizeBytes);
    expect(read.sha256).not.toBe(written.sha256);
  });
});
