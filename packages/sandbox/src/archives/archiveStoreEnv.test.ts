import { resolve } from "node:path";
import { startS3Server } from "@berth/testkit";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  archiveLocationFromEnv,
  archiveStoreEnvSchema,
  archiveStoreFromEnv,
} from "./archiveStoreEnv.ts";

const schema = archiveStoreEnvSchema;
const parse = (env: Record<string, string>) => schema.parse(env);
const problems = (env: Record<string, string>) =>
  schema.safeParse(env).error?.issues.map((issue) => issue.path.join(".")) ?? [];

describe("the archive store's environment", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("keeps archives in <BERTH_DATA_DIR>/archives when nothing else is said", () => {
    expect(archiveLocationFromEnv(parse({ BERTH_DATA_DIR: "/srv/berth" }))).toEqual({
      kind: "filesystem",
      root: "/srv/berth/archives",
    });
    expect(archiveLocationFromEnv(parse({}))).toEqual({
      kind: "filesystem",
      root: resolve(".data/archives"),
    });
  });

  it("takes BERTH_ARCHIVE_DIR as the short form of a file:// URL, and BERTH_ARCHIVE_URL over it", () => {
    expect(archiveLocationFromEnv(parse({ BERTH_ARCHIVE_DIR: "/a" }))).toEqual({
      kind: "filesystem",
      root: "/a",
    });
    expect(
      archiveLocationFromEnv(parse({ BERTH_ARCHIVE_DIR: "/a", BERTH_ARCHIVE_URL: "file:///b/c" })),
    ).toEqual({ kind: "filesystem", root: "/b/c" });
    expect(
      archiveLocationFromEnv(parse({ BERTH_ARCHIVE_DIR: "/a", BERTH_ARCHIVE_URL: "s3://bk-1/x" })),
    ).toMatchObject({ kind: "s3", bucket: "bk-1", prefix: "x" });
  });

  it("reads a bucket, its prefix and the S3 service's settings", () => {
    expect(
      archiveLocationFromEnv(
        parse({
          BERTH_ARCHIVE_URL: "s3://berth-archives/prod/eu/",
          BERTH_S3_ENDPOINT: "http://127.0.0.1:9000",
          BERTH_S3_REGION: "eu-west-1",
          BERTH_S3_FORCE_PATH_STYLE: "true",
        }),
      ),
    ).toEqual({
      kind: "s3",
      bucket: "berth-archives",
      prefix: "prod/eu",
      endpoint: "http://127.0.0.1:9000",
      region: "eu-west-1",
      forcePathStyle: true,
    });
    expect(archiveLocationFromEnv(parse({ BERTH_ARCHIVE_URL: "s3://bucket" }))).toEqual({
      kind: "s3",
      bucket: "bucket",
      prefix: "",
      forcePathStyle: false,
    });
  });

  it("refuses URLs that name no store", () => {
    for (const url of [
      "http://example.com/x",
      "/just/a/path",
      "file://host/x",
      "s3://",
      "s3://UPPER/x",
      "s3://bucket/a b",
      "s3://bucket/.incoming",
      "s3://key:secret@bucket/x",
    ]) {
      expect(problems({ BERTH_ARCHIVE_URL: url }), url).toEqual(["BERTH_ARCHIVE_URL"]);
    }
    expect(problems({ BERTH_S3_FORCE_PATH_STYLE: "maybe" })).toEqual(["BERTH_S3_FORCE_PATH_STYLE"]);
    expect(problems({ BERTH_S3_ENDPOINT: "minio:9000" })).toEqual(["BERTH_S3_ENDPOINT"]);
  });

  it("builds an S3 store that reaches the bucket with credentials from the AWS chain", async () => {
    await using s3 = await startS3Server();
    vi.stubEnv("AWS_ACCESS_KEY_ID", s3.credentials.accessKeyId);
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", s3.credentials.secretAccessKey);
    const store = archiveStoreFromEnv(
      parse({
        BERTH_ARCHIVE_URL: `s3://${s3.bucket}/from-env`,
        BERTH_S3_ENDPOINT: s3.endpoint,
        BERTH_S3_FORCE_PATH_STYLE: "true",
      }),
    );
    const pending = await store.begin();
    pending.sink.end(Buffer.from("through the chain"));
    await pending.commit("k/env");

    expect(store.kind).toBe("s3");
    expect((await store.digest("k/env")).sizeBytes).toBe("through the chain".length);
    const listing = await (await fetch(`${s3.endpoint}/${s3.bucket}?prefix=from-env/`)).text();
    expect(listing).toContain("<Key>from-env/k/env</Key>");
  });
});
