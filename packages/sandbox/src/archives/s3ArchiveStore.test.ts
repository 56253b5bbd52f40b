import { randomBytes } from "node:crypto";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { startS3Server, type TestS3Server } from "@berth/testkit";
import { afterAll, beforeAll } from "vitest";
import { describeArchiveStoreContract } from "./contract/index.ts";
import { S3ArchiveStore } from "./s3ArchiveStore.ts";
import { createS3Client } from "./s3Client.ts";

let s3: TestS3Server | undefined;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.[Symbol.asyncDispose]();
});

/** The real SDK against s3rver over loopback HTTP; each test keeps to a prefix of its own. */
describeArchiveStoreContract("s3 (s3rver)", () => {
  if (s3 === undefined) throw new Error("the S3 server starts before the suite");
  const client = createS3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: s3.credentials,
  });
  const bucket = s3.bucket;
  const prefix = `contract-${randomBytes(4).toString("hex")}`;
  return Promise.resolve({
    store: new S3ArchiveStore({ client, bucket, prefix, partSizeBytes: 5 * 1024 * 1024 }),
    // s3rver has no ListMultipartUploads: the temporary objects are what a listing can show.
    pendingCount: async () => {
      const listed = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/.incoming/` }),
      );
      return listed.KeyCount ?? 0;
    },
    dispose: () => {
      client.destroy();
      return Promise.resolve();
    },
  });
});
